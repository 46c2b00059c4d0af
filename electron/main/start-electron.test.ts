import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot } from '../../test-support/paths.js';
import { TempDirs } from '../../test-support/temp-dir.js';

const temp = new TempDirs();
afterEach(() => temp.cleanup());

const electronInstalled = fs.existsSync(path.join(repoRoot, 'node_modules', 'electron', 'path.txt'));
const electronVersion = (
  JSON.parse(fs.readFileSync(path.join(repoRoot, 'node_modules', 'electron', 'package.json'), 'utf8')) as { version: string }
).version;

describe('npm start', () => {
  // Where the binary is installed, `npm start` would launch the app instead; this covers fresh machines.
  it('says why when the Electron binary cannot be downloaded', async (ctx) => {
    if (electronInstalled) ctx.skip('the Electron binary is installed here, so npm start would launch the app');
    // A release mirror without the file, and an empty download cache: the download must fail.
    const mirror = http.createServer((_req, res) => res.writeHead(404).end());
    await new Promise<void>((resolve) => mirror.listen(0, '127.0.0.1', resolve));
    const { port } = mirror.address() as AddressInfo;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ELECTRON_MIRROR: `http://127.0.0.1:${port}/`,
      electron_config_cache: temp.make(),
    };
    delete env['ELECTRON_SKIP_BINARY_DOWNLOAD'];
    delete env['ELECTRON_OVERRIDE_DIST_PATH'];
    try {
      const child = spawn(process.execPath, [path.join(repoRoot, 'scripts', 'start-electron.mjs')], {
        cwd: repoRoot,
        env,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(code).toBe(1);
      expect(stderr).toMatch(new RegExp(`wheelhouse: could not download Electron ${electronVersion.replace(/\./g, '\\.')}: .*404`));
      expect(stderr).not.toMatch(/^\s+at /m); // a reason, not a stack trace
    } finally {
      mirror.close();
    }
    expect(fs.existsSync(path.join(repoRoot, 'node_modules', 'electron', 'path.txt'))).toBe(false);
  }, 60_000);
});
