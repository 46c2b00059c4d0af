// Builds Electron-ABI copies of native modules, leaving node_modules alone.
//
// node_modules keeps the builds for Node's ABI, so `npm test` works under
// Node. Electron has its own ABI, so this script copies each module that uses
// V8's ABI to dist-electron/native/<platform>-<arch>/<name>/ and builds the
// copy for the installed Electron: first the package's prebuilt binary for
// that Electron (prebuild-install, as the package's own install script does),
// else from source with node-gyp against Electron's headers. A stamp file makes
// reruns free until Electron, the module version, platform or arch change.
// The main process hands the result to better-sqlite3 as `nativeBinding`
// (electron/main/native-binding.ts knows the same layout).
//
// node-pty 1.1 and @napi-rs/keyring are Node-API modules: ABI-stable, so
// Electron loads their Node builds unchanged and they are not listed here.
//
// Usage: node scripts/prepare-electron-native.mjs [--arch ARCH] [--out DIR] [--headers-url URL]
// Set npm_config_build_from_source=true to skip the prebuilt download.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Modules built against V8's ABI, and where each one's binding lands. */
export const ELECTRON_NATIVE_MODULES = [{ name: 'better-sqlite3', binding: 'build/Release/better_sqlite3.node' }];

/** Where Electron's headers are downloaded from (node-gyp `--dist-url`). */
export const ELECTRON_HEADERS_URL = 'https://electronjs.org/headers';

const STAMP_FILE = '.wheelhouse-electron-build.json';

/** A failure with a message meant for the user. */
export class PrepareError extends Error {}

/** The version of the installed `electron` package. */
export function installedElectronVersion(root = projectRoot) {
  const manifest = path.join(root, 'node_modules', 'electron', 'package.json');
  if (!fs.existsSync(manifest)) throw new PrepareError('the electron package is not installed: run `npm install`');
  return JSON.parse(fs.readFileSync(manifest, 'utf8')).version;
}

/**
 * Prepares every module in ELECTRON_NATIVE_MODULES; resolves to the binding
 * paths, throws PrepareError when one cannot be built.
 */
export async function prepareElectronNative(options = {}) {
  const root = options.root ?? projectRoot;
  const outDir = path.resolve(options.outDir ?? path.join(root, 'dist-electron', 'native'));
  const platform = options.platform ?? process.platform;
  const arch = options.arch ?? process.arch;
  const electron = options.electronVersion ?? installedElectronVersion(root);
  const headersUrl = options.headersUrl ?? ELECTRON_HEADERS_URL;
  const log = options.log ?? ((line) => process.stderr.write(`${line}\n`));

  const bindings = [];
  for (const module of ELECTRON_NATIVE_MODULES) {
    const source = path.join(root, 'node_modules', module.name);
    const manifest = path.join(source, 'package.json');
    if (!fs.existsSync(manifest)) throw new PrepareError(`${module.name} is not installed: run \`npm install\``);
    const version = JSON.parse(fs.readFileSync(manifest, 'utf8')).version;
    const target = path.join(outDir, `${platform}-${arch}`, module.name);
    const binding = path.join(target, ...module.binding.split('/'));
    const stamp = { module: module.name, version, electron, platform, arch };
    if (stampMatches(target, stamp) && fs.existsSync(binding)) {
      log(`${module.name} ${version} for Electron ${electron} (${platform}-${arch}) is up to date: ${binding}`);
      bindings.push(binding);
      continue;
    }

    const staging = `${target}.staging-${process.pid}`;
    fs.rmSync(staging, { recursive: true, force: true });
    try {
      fs.mkdirSync(path.dirname(staging), { recursive: true });
      fs.cpSync(source, staging, {
        recursive: true,
        filter: (file) => path.relative(source, file).split(path.sep)[0] !== 'build',
      });
      const how = buildForElectron({ root, source, dir: staging, module, version, electron, platform, arch, headersUrl, log });
      const built = path.join(staging, ...module.binding.split('/'));
      if (!fs.existsSync(built)) throw new PrepareError(`${how} finished but produced no ${module.binding}`);
      const abi = bindingAbi(built);
      const expectedAbi = electronAbi(root);
      if (abi !== expectedAbi) {
        throw new PrepareError(
          `${how} produced ${module.name} for NODE_MODULE_VERSION ${abi ?? 'unknown'}, but Electron ${electron} needs ${expectedAbi}` +
            ' (an npm or node-gyp setting may point the build at other headers)',
        );
      }
      fs.writeFileSync(path.join(staging, STAMP_FILE), `${JSON.stringify({ ...stamp, how }, null, 2)}\n`);
      fs.rmSync(target, { recursive: true, force: true });
      fs.renameSync(staging, target);
    } finally {
      fs.rmSync(staging, { recursive: true, force: true });
    }
    log(`${module.name} ${version} is ready for Electron ${electron} (${platform}-${arch}): ${binding}`);
    bindings.push(binding);
  }
  return bindings;
}

/** The NODE_MODULE_VERSION Electron's native modules must be built for (shipped in the electron package). */
function electronAbi(root) {
  return fs.readFileSync(path.join(root, 'node_modules', 'electron', 'abi_version'), 'utf8').trim();
}

/**
 * The NODE_MODULE_VERSION a V8-ABI addon was built for: its exported
 * `node_register_module_v<N>` symbol, whose name is plain text in ELF, Mach-O
 * and PE files alike.
 */
function bindingAbi(file) {
  const match = /node_register_module_v(\d+)/.exec(fs.readFileSync(file).toString('latin1'));
  return match ? match[1] : undefined;
}

function stampMatches(target, expected) {
  try {
    const found = JSON.parse(fs.readFileSync(path.join(target, STAMP_FILE), 'utf8'));
    return Object.entries(expected).every(([key, value]) => found[key] === value);
  } catch {
    return false;
  }
}

/** Tries the prebuilt binary, then node-gyp; returns which one worked. */
function buildForElectron({ root, source, dir, module, version, electron, platform, arch, headersUrl, log }) {
  const what = `${module.name} ${version} for Electron ${electron} (${platform}-${arch})`;
  const failures = [];
  const buildFromSource = process.env.npm_config_build_from_source;
  if (buildFromSource !== 'true' && buildFromSource !== module.name) {
    log(`downloading the prebuilt ${what}...`);
    const prebuilt = run(resolvePrebuildInstall(source), [
      '--runtime=electron',
      `--target=${electron}`,
      `--arch=${arch}`,
      `--platform=${platform}`,
    ], dir);
    if (prebuilt.ok) return 'prebuild-install';
    failures.push(`prebuilt download failed: ${prebuilt.reason}`);
  }
  if (platform !== process.platform) {
    failures.push(`cannot build from source for ${platform} on ${process.platform}`);
  } else {
    const nodeGyp = locateNodeGyp(root);
    if (!nodeGyp) {
      failures.push('build from source impossible: node-gyp was not found (it ships with npm)');
    } else {
      log(`building ${what} from source with node-gyp (a minute or two)...`);
      const built = run(nodeGyp, [
        'rebuild',
        '--release',
        '--runtime=electron',
        `--target=${electron}`,
        `--arch=${arch}`,
        `--dist-url=${headersUrl}`,
        `--devdir=${path.join(os.homedir(), '.electron-gyp')}`,
        '--jobs=max',
      ], dir);
      if (built.ok) return 'node-gyp';
      failures.push(`build from source failed: ${built.reason}`);
    }
  }
  throw new PrepareError(
    [
      `could not build ${what}:`,
      ...failures.map((failure) => `  - ${failure}`),
      `The prebuilt binary comes from GitHub; building from source needs Electron's headers from ${headersUrl}`,
      'and a C++20 toolchain (python3, make and g++/clang, or Visual Studio Build Tools on Windows).',
    ].join('\n'),
  );
}

function resolvePrebuildInstall(source) {
  return createRequire(path.join(source, 'package.json')).resolve('prebuild-install/bin.js');
}

/** npm's bundled node-gyp (as npm scripts see it), else the one next to this Node, else the project's. */
function locateNodeGyp(root) {
  const candidates = [
    process.env.npm_config_node_gyp,
    process.env.npm_execpath &&
      path.join(path.dirname(process.env.npm_execpath), '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
    path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
    path.join(path.dirname(process.execPath), 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
  ];
  try {
    candidates.push(createRequire(path.join(root, 'package.json')).resolve('node-gyp/bin/node-gyp.js'));
  } catch {
    // not installed in the project; the npm copies above are the usual ones
  }
  return candidates.find((candidate) => candidate && candidate.endsWith('.js') && fs.existsSync(candidate));
}

/**
 * npm settings that would retarget the build (an npmrc `nodedir` makes node-gyp
 * use Node's headers and silently produce a Node build). npm passes them to
 * scripts as npm_config_* variables, so they are removed for the builders;
 * network settings (proxy, cafile) stay.
 */
const RETARGETING_SETTINGS = new Set([
  'nodedir', 'target', 'target_arch', 'target_platform', 'arch', 'platform', 'runtime',
  'disturl', 'dist_url', 'devdir', 'tarball', 'debug', 'libc',
]);

function builderEnv() {
  return Object.fromEntries(
    Object.entries(process.env).filter(([name]) => {
      const match = /^npm_config_(.+)$/i.exec(name);
      return !match || !RETARGETING_SETTINGS.has(match[1].toLowerCase().replace(/-/g, '_'));
    }),
  );
}

/** Report lines (node-gyp's, Node's warnings) that say nothing about the cause. */
const NOISE = /^(gyp (info|ERR! (stack\s+at |System |command |cwd |node -v|node-gyp -v|not ok|\$npm_))|\(node:\d+\) |\(Use `node --trace-warnings)/;

/** Runs a Node script; its output is kept and only shown (the tail) when it fails. */
function run(script, args, cwd) {
  const result = spawnSync(process.execPath, [script, ...args], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: builderEnv(),
  });
  if (result.error) return { ok: false, reason: result.error.message };
  if (result.status === 0) return { ok: true };
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`
    .split('\n')
    .filter((line) => line.trim() !== '' && !NOISE.test(line));
  const tail = output.slice(-12).map((line) => `      ${line.trimEnd()}`).join('\n');
  return { ok: false, reason: `exit ${result.status ?? result.signal}${tail ? `\n${tail}` : ''}` };
}

async function main() {
  let values;
  try {
    ({ values } = parseArgs({
      options: { arch: { type: 'string' }, out: { type: 'string' }, 'headers-url': { type: 'string' } },
      strict: true,
    }));
  } catch (error) {
    process.stderr.write(`prepare-electron-native: ${error.message}\n`);
    return 2;
  }
  try {
    await prepareElectronNative({ arch: values.arch, outDir: values.out, headersUrl: values['headers-url'] });
    return 0;
  } catch (error) {
    if (!(error instanceof PrepareError)) throw error;
    process.stderr.write(`prepare-electron-native: ${error.message}\n`);
    return 1;
  }
}

if (process.argv[1] && pathToFileURL(path.resolve(process.argv[1])).href === import.meta.url) {
  process.exitCode = await main();
}
