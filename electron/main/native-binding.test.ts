import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot } from '../../test-support/paths.js';
import { TempDirs } from '../../test-support/temp-dir.js';
import { createTestRuntime } from '../../test-support/test-runtime.js';
import {
  devBetterSqliteBinding,
  electronNativeRoot,
  explainStartupError,
  findBetterSqliteBinding,
  packagedBetterSqliteBinding,
} from './native-binding.js';

const temp = new TempDirs();
afterEach(() => temp.cleanup());

const script = path.join(repoRoot, 'scripts', 'prepare-electron-native.mjs');
const packageVersion = (name: string): string =>
  (JSON.parse(fs.readFileSync(path.join(repoRoot, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

/** Runs the prepare script as `npm start` would, with its output. */
function runPrepare(args: readonly string[], env: NodeJS.ProcessEnv = {}) {
  return new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], {
      cwd: repoRoot,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('native binding lookup', () => {
  const host = { appPath: '/app', resourcesPath: '/opt/Wheelhouse/resources', platform: 'linux', arch: 'x64' };

  it('uses the Electron build under dist-electron in development and the shipped copy when packaged', () => {
    const dev = path.join('/app', 'dist-electron', 'native', 'linux-x64', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
    const packaged = path.join('/opt/Wheelhouse/resources', 'native', 'better_sqlite3.node');
    expect(findBetterSqliteBinding({ ...host, isPackaged: false }, (file) => file === dev)).toBe(dev);
    expect(findBetterSqliteBinding({ ...host, isPackaged: true }, (file) => file === packaged)).toBe(packaged);
  });

  it('reports no binding when it has not been built, never the Node build in node_modules', () => {
    expect(findBetterSqliteBinding({ ...host, isPackaged: false }, () => false)).toBeUndefined();
    expect(findBetterSqliteBinding({ ...host, isPackaged: true }, () => false)).toBeUndefined();
    expect(packagedBetterSqliteBinding('/r')).not.toContain('node_modules');
  });
});

describe('startup errors', () => {
  it('tell the user how to build the database module when the binding cannot be loaded', () => {
    const missing = path.join(temp.make(), 'better_sqlite3.node');
    let failure: unknown;
    try {
      createTestRuntime({ home: temp.make(), nativeBinding: missing }).close();
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(Error);
    const message = explainStartupError(failure, missing, false);
    expect(message).toMatch(/could not be loaded/);
    expect(message).toMatch(/prepare-electron-native/);
    expect(explainStartupError(failure, missing, true)).toMatch(/Reinstall Wheelhouse/);
  });

  it('recognise an ABI mismatch and a binding that was never built', () => {
    const abi = new Error(
      "The module '/x/better_sqlite3.node' was compiled against a different Node.js version using NODE_MODULE_VERSION 115. This version of Node.js requires NODE_MODULE_VERSION 143.",
    );
    expect(explainStartupError(abi, '/x/better_sqlite3.node', false)).toMatch(/built for a different Electron or Node version/);
    const unbuilt = new Error('Could not locate the bindings file. Tried: ...');
    expect(explainStartupError(unbuilt, undefined, false)).toMatch(/has not been built for Electron.*npm start/s);
    expect(explainStartupError(new Error('disk full'), '/x', false)).toBe('Wheelhouse could not start its runtime: disk full');
  });
});

describe('scripts/prepare-electron-native.mjs', () => {
  it('writes the binding where the main process looks for it, and skips work already done', async () => {
    const out = temp.make();
    const expected = devBetterSqliteBinding(out, process.platform, process.arch);
    expect(path.dirname(electronNativeRoot('/app'))).toBe(path.join('/app', 'dist-electron'));
    // A finished build: the binding plus the stamp the script writes after building.
    const target = path.join(out, `${process.platform}-${process.arch}`, 'better-sqlite3');
    fs.mkdirSync(path.dirname(expected), { recursive: true });
    fs.writeFileSync(expected, 'built for electron');
    const stamp = {
      module: 'better-sqlite3',
      version: packageVersion('better-sqlite3'),
      electron: packageVersion('electron'),
      platform: process.platform,
      arch: process.arch,
    };
    fs.writeFileSync(path.join(target, '.wheelhouse-electron-build.json'), JSON.stringify(stamp));

    const { code, stderr } = await runPrepare(['--out', out]);
    expect(stderr).toContain(`up to date: ${expected}`);
    expect(code).toBe(0);
    expect(fs.readFileSync(expected, 'utf8')).toBe('built for electron');
  });

  it('fails with a clear message and leaves nothing half-built when it cannot build', async () => {
    const out = temp.make();
    const home = temp.make(); // empty header cache, so node-gyp has to download
    // A headers mirror that has nothing: the build cannot get Electron's headers.
    const mirror = http.createServer((_req, res) => res.writeHead(404).end());
    await new Promise<void>((resolve) => mirror.listen(0, '127.0.0.1', resolve));
    const { port } = mirror.address() as AddressInfo;
    let result;
    try {
      result = await runPrepare(['--out', out, '--headers-url', `http://127.0.0.1:${port}/`], {
        npm_config_build_from_source: 'true',
        HOME: home,
        USERPROFILE: home,
      });
    } finally {
      mirror.close();
    }
    const { code, stderr } = result;
    expect(code).toBe(1);
    expect(stderr).toContain(`could not build better-sqlite3 ${packageVersion('better-sqlite3')} for Electron ${packageVersion('electron')}`);
    expect(stderr).toMatch(/build from source failed: .*\n.*headers\.tar\.gz/);
    expect(stderr).toMatch(/C\+\+20 toolchain/);
    const leftovers = fs.readdirSync(out, { recursive: true });
    expect(leftovers.filter((entry) => String(entry).includes('better-sqlite3'))).toEqual([]);
  }, 120_000); // node-gyp runs python and retries; slow on a busy machine

  it('rejects unknown options', async () => {
    const { code, stderr } = await runPrepare(['--bogus']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/bogus/);
  });
});
