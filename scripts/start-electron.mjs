// `npm start`: makes sure the Electron binary exists (package.json disallows
// electron's install script, so npm install never downloads it), builds the
// Electron copies of native modules, builds the app, then runs Electron on this
// folder and exits the way Electron exits. Its arguments go to the app
// (`npm start -- --flag`).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { installedElectronVersion, prepareElectronNative, PrepareError } from './prepare-electron-native.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const electronDir = path.join(root, 'node_modules', 'electron');

/** A failure with a message meant for the user. */
class StartError extends Error {}

/** The Electron executable when it is installed for this package version, else undefined (mirrors electron/install.js). */
function installedElectronBinary(version) {
  try {
    const relative = fs.readFileSync(path.join(electronDir, 'path.txt'), 'utf8');
    const distDir = process.env.ELECTRON_OVERRIDE_DIST_PATH || path.join(electronDir, 'dist');
    if (!process.env.ELECTRON_OVERRIDE_DIST_PATH) {
      const installed = fs.readFileSync(path.join(distDir, 'version'), 'utf8').trim().replace(/^v/, '');
      if (installed !== version) return undefined;
    }
    const binary = path.join(distDir, relative);
    return fs.existsSync(binary) ? binary : undefined;
  } catch {
    return undefined;
  }
}

function ensureElectronBinary() {
  let version;
  try {
    version = installedElectronVersion(root);
  } catch (error) {
    throw new StartError(error.message);
  }
  const existing = installedElectronBinary(version);
  if (existing) return existing;
  if (process.env.ELECTRON_SKIP_BINARY_DOWNLOAD) {
    throw new StartError(`the Electron ${version} binary is missing and ELECTRON_SKIP_BINARY_DOWNLOAD is set`);
  }
  process.stderr.write(`downloading Electron ${version} (one time)...\n`);
  const result = spawnSync(process.execPath, [path.join(electronDir, 'install.js')], {
    cwd: electronDir,
    encoding: 'utf8',
    stdio: ['ignore', 'inherit', 'pipe'],
  });
  if (result.error || result.status !== 0) {
    throw new StartError(`could not download Electron ${version}: ${downloadFailure(result)}`);
  }
  const installed = installedElectronBinary(version);
  if (!installed) throw new StartError(`could not download Electron ${version}: the installer finished but left no binary`);
  return installed;
}

/** The first line of the installer's error (its stack trace says nothing more to a user). */
function downloadFailure(result) {
  if (result.error) return result.error.message;
  const lines = (result.stderr ?? '').split('\n').map((line) => line.trim()).filter(Boolean);
  return lines.find((line) => /error/i.test(line)) ?? lines[0] ?? `installer exited with ${result.status ?? result.signal}`;
}

function build() {
  const result = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'inherit' });
  if (result.error || result.status !== 0) {
    throw new StartError(`the build failed${result.error ? `: ${result.error.message}` : ''}`);
  }
}

/** Runs Electron on the app folder; forwards termination signals and mirrors its exit. */
function launch(binary, args) {
  const env = { ...process.env };
  delete env.ELECTRON_RUN_AS_NODE; // would turn the app into a plain Node process
  const child = spawn(binary, [root, ...args], { cwd: root, stdio: 'inherit', env });
  const forward = (signal) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of signals) process.on(signal, forward);
  child.on('error', (error) => {
    process.stderr.write(`wheelhouse: could not run Electron (${binary}): ${error.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    for (const name of signals) process.off(name, forward);
    if (signal) process.kill(process.pid, signal);
    else process.exit(code ?? 1);
  });
}

try {
  const binary = ensureElectronBinary();
  await prepareElectronNative({ root });
  build();
  launch(binary, process.argv.slice(2));
} catch (error) {
  if (!(error instanceof StartError) && !(error instanceof PrepareError)) throw error;
  process.stderr.write(`wheelhouse: ${error.message}\n`);
  process.exitCode = 1;
}
