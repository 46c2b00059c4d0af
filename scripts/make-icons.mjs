// Draws every icon the desktop app and its packages use from the SVG marks in
// build/ (Chromium renders them, so no image library is needed), and writes the
// containers electron-builder takes: icon.icns (macOS), icon.ico (Windows) and a
// PNG per size for Linux, plus the tray pictures. Run after changing a mark:
//   node scripts/make-icons.mjs
// The results are committed; the build never runs this.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const build = path.join(root, 'build');

/**
 * The tray glyph: a ship's wheel with thicker strokes than the app icon's. At
 * 16 px eight spokes blur into a blot, so that size has four, on whole pixels.
 */
const wheel = (stroke, small) =>
  small
    ? `<g transform="translate(16 16)" fill="none" stroke="${stroke}" stroke-linecap="butt">
    <circle r="7" stroke-width="4"/>
    <path stroke-width="4" d="M0-14V14M-14 0H14"/>
  </g>`
    : `<g transform="translate(16 16)" fill="none" stroke="${stroke}" stroke-linecap="round">
    <circle r="8.2" stroke-width="2.8"/>
    <circle r="2.1" stroke-width="2.2"/>
    <path stroke-width="2.4" d="M0-4.2V-14M0 4.2V14M-4.2 0H-14M4.2 0H14M3-3L9.9-9.9M-3 3L-9.9 9.9M-3-3L-9.9-9.9M3 3L9.9 9.9"/>
  </g>`;

/** macOS menu bar: black on transparent; the system tints it (a template image). */
const trayTemplate = (small) => `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">${wheel('#000', small)}</svg>`;

/** Linux and Windows trays: the app's colours, with a dot for running jobs (green) or approvals waiting (orange). */
const trayColour = (dot) => (small) => `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
  <defs><linearGradient id="f" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#7b86ff"/><stop offset="1" stop-color="#5560e8"/></linearGradient></defs>
  <rect x="0" y="0" width="32" height="32" rx="${small ? 6 : 8}" fill="url(#f)"/>
  ${wheel('#fff', small)}
  ${dot ? (small ? `<circle cx="24" cy="24" r="8" fill="${dot}" stroke="#fff" stroke-width="2.5"/>` : `<circle cx="25" cy="25" r="6.4" fill="${dot}" stroke="#fff" stroke-width="2"/>`) : ''}
</svg>`;

const appSvg = readFileSync(path.join(build, 'icon.svg'), 'utf8');

const browser = await chromium.launch({
  executablePath: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--force-device-scale-factor=1'],
});
const page = await browser.newPage({ deviceScaleFactor: 1 });

/** `svg` drawn at `size`×`size` pixels, as PNG bytes with a transparent background. */
async function render(svg, size) {
  const sized = svg.replace(/<svg\b([^>]*)>/, (_match, attributes) => `<svg${attributes.replace(/\s(width|height)="[^"]*"/g, '')} width="${size}" height="${size}">`);
  await page.setViewportSize({ width: size, height: size });
  await page.setContent(`<!doctype html><html><body style="margin:0;background:transparent">${sized}</body></html>`);
  return page.locator('svg').screenshot({ omitBackground: true, type: 'png' });
}

function write(file, bytes) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, bytes);
  console.log(`${path.relative(root, file)} (${bytes.length} bytes)`);
}

// The app icon: Linux sizes, the 1024 px master, and the macOS and Windows containers.
const appSizes = [16, 24, 32, 48, 64, 128, 256, 512, 1024];
const app = new Map();
for (const size of appSizes) app.set(size, await render(appSvg, size));
for (const size of appSizes.filter((s) => s <= 512)) write(path.join(build, 'icons', `${size}x${size}.png`), app.get(size));
write(path.join(build, 'icon.png'), app.get(1024));
write(path.join(build, 'icon.icns'), icns([
  ['icp4', app.get(16)],
  ['icp5', app.get(32)],
  ['ic11', app.get(32)],
  ['icp6', app.get(64)],
  ['ic12', app.get(64)],
  ['ic07', app.get(128)],
  ['ic08', app.get(256)],
  ['ic13', app.get(256)],
  ['ic09', app.get(512)],
  ['ic14', app.get(512)],
  ['ic10', app.get(1024)],
]));
write(path.join(build, 'icon.ico'), ico([16, 24, 32, 48, 64, 128, 256].map((size) => [size, app.get(size)])));

// The tray pictures, 16 px with an @2x for high-density screens.
for (const [name, svg] of [
  ['trayTemplate', trayTemplate],
  ['tray-idle', trayColour(null)],
  ['tray-busy', trayColour('#2fb86a')],
  ['tray-attention', trayColour('#f08c00')],
]) {
  write(path.join(build, 'tray', `${name}.png`), await render(svg(true), 16));
  write(path.join(build, 'tray', `${name}@2x.png`), await render(svg(false), 32));
}
await browser.close();

/** An Apple icon family: 'icns', the total length, then each entry's type, length and PNG bytes. */
function icns(entries) {
  const parts = entries.map(([type, png]) => {
    const header = Buffer.alloc(8);
    header.write(type, 0, 'ascii');
    header.writeUInt32BE(png.length + 8, 4);
    return Buffer.concat([header, png]);
  });
  const header = Buffer.alloc(8);
  header.write('icns', 0, 'ascii');
  header.writeUInt32BE(8 + parts.reduce((n, part) => n + part.length, 0), 4);
  return Buffer.concat([header, ...parts]);
}

/** A Windows icon with PNG-compressed images (Windows Vista and later read them at every size). */
function ico(entries) {
  const header = Buffer.alloc(6);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2);
  header.writeUInt16LE(entries.length, 4);
  let offset = 6 + 16 * entries.length;
  const directory = entries.map(([size, png]) => {
    const entry = Buffer.alloc(16);
    entry.writeUInt8(size >= 256 ? 0 : size, 0);
    entry.writeUInt8(size >= 256 ? 0 : size, 1);
    entry.writeUInt8(0, 2);
    entry.writeUInt8(0, 3);
    entry.writeUInt16LE(1, 4);
    entry.writeUInt16LE(32, 6);
    entry.writeUInt32LE(png.length, 8);
    entry.writeUInt32LE(offset, 12);
    offset += png.length;
    return entry;
  });
  return Buffer.concat([header, ...directory, ...entries.map(([, png]) => png)]);
}
