// Records what Codex's app-server sends in the differential test's sessions
// (`npm run record:codex`; not run in CI). Installs @openai/codex from npm into
// a cache folder outside the repository, runs every session of
// test-support/codex-diff/sessions.ts against `codex app-server` over stdio with
// the mock model on the Responses wire, and writes the normalized traces to
// test-support/codex-traces/<version>/. Each session is recorded several times
// (--runs, default 3): the first recording is the fixture, and wherever the
// others differ from it (Codex's own timing) is written down as "unstable", so
// the test never holds Wheelhouse to one side of Codex's own variation.
//
//   npm run record:codex                          # Codex 0.169.0, every session
//   npm run record:codex -- --version 0.170.0     # a newer Codex
//   npm run record:codex -- --session queue       # one session (repeatable)
//
// docs/codex-differences.md says what to do after re-recording.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { spawnTracked } from '../test-support/child-process.js';
import { stdioConnection } from '../test-support/codex-diff/connections.js';
import { differenceKey, ensureDifferencesFile } from '../test-support/codex-diff/differences-file.js';
import { runSession, type TraceEntry } from '../test-support/codex-diff/session-driver.js';
import { makeSessionFolders, MOCK_KEY, runFolders, serverEnvironment, writeSessionHome } from '../test-support/codex-diff/session-home.js';
import type { CodexSession } from '../test-support/codex-diff/session-types.js';
import { CODEX_SESSIONS } from '../test-support/codex-diff/sessions.js';
import { diffTraces, formatDifference, type Difference } from '../test-support/codex-diff/trace-diff.js';
import { writeTraceFixture } from '../test-support/codex-diff/trace-fixtures.js';
import { TraceNormalizer } from '../test-support/codex-diff/trace-normalizer.js';
import { startMockModelServer } from '../test-support/mock-model/index.js';
import { WireConformanceRun, formatViolation } from '../test-support/wire-conformance.js';

const { values } = parseArgs({
  options: {
    version: { type: 'string', default: '0.169.0' },
    runs: { type: 'string', default: '3' },
    session: { type: 'string', multiple: true },
  },
});
const version = values.version;
const cacheRoot = path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'wheelhouse', `codex-${version}`);

/** Installs @openai/codex@<version> (with its native binary, an optional dependency) into the cache once. */
function installCodex(): string {
  const entry = path.join(cacheRoot, 'node_modules', '@openai', 'codex', 'bin', 'codex.js');
  const manifest = path.join(cacheRoot, 'node_modules', '@openai', 'codex', 'package.json');
  const installed = fs.existsSync(manifest) ? (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { version?: string }).version : undefined;
  if (installed === version && fs.existsSync(entry)) return entry;
  fs.mkdirSync(cacheRoot, { recursive: true });
  process.stdout.write(`Installing @openai/codex@${version} into ${cacheRoot}\n`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(npm, ['install', '--prefix', cacheRoot, '--no-save', '--no-audit', '--no-fund', `@openai/codex@${version}`], { stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`npm install @openai/codex@${version} failed (exit ${String(result.status)})`);
  return entry;
}

/** One recording of a session against a fresh Codex home (outside the OS temp folder: Codex refuses to set up its sandbox helper there). */
async function record(codexEntry: string, session: CodexSession, attempt: number): Promise<TraceEntry[]> {
  const runs = path.join(cacheRoot, 'runs');
  fs.mkdirSync(runs, { recursive: true });
  const root = fs.mkdtempSync(path.join(runs, `${session.name}-${attempt}-`));
  const folders = makeSessionFolders(root);
  const mock = await startMockModelServer({ apiKey: MOCK_KEY });
  const conformance = new WireConformanceRun(undefined);
  const tap = conformance.tap();
  try {
    writeSessionHome(folders.home, session.home, mock.url);
    const trace = await runSession({
      session,
      mock,
      normalizer: new TraceNormalizer(runFolders(root, folders), os.hostname()),
      observer: tap,
      connect: () => {
        const codex = spawnTracked(process.execPath, [codexEntry, 'app-server'], {
          cwd: folders.cwd,
          stdio: ['pipe', 'pipe', 'pipe'],
          env: { ...serverEnvironment(folders), CODEX_HOME: folders.home, RUST_LOG: 'error' },
        });
        return Promise.resolve(stdioConnection(codex));
      },
    });
    for (const violation of conformance.takeViolations()) {
      process.stdout.write(`  note, Codex's own message fails the conformance check: ${formatViolation(violation)}\n`);
    }
    checkRequests(conformance, session, trace);
    return trace;
  } finally {
    await mock.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/** Two orders of one turn are one variation, whichever recording came first. */
function variationKey(d: Difference): string {
  return d.kind === 'order' ? JSON.stringify([d.path, [d.codex, d.wheelhouse].sort()]) : differenceKey(d);
}

/** A session must send what Codex's schema allows, as Codex's own clients do; a request that breaks it is the session's bug. */
function checkRequests(conformance: WireConformanceRun, session: CodexSession, trace: readonly TraceEntry[]): void {
  const schema = conformance.codex();
  for (const { from, message } of trace) {
    if (from !== 'client' || typeof message.method !== 'string' || message.id === undefined) continue;
    const ref = schema.methods.clientRequest.get(message.method)?.params;
    const failure = ref ? schema.check(ref, message.params ?? {}) : undefined;
    if (failure) throw new Error(`session ${session.name} sends ${message.method} params that break Codex's schema at ${failure.path}: ${failure.message}`);
  }
}

async function main(): Promise<void> {
  const wanted = values.session ?? CODEX_SESSIONS.map((s) => s.name);
  const unknown = wanted.filter((name) => !CODEX_SESSIONS.some((s) => s.name === name));
  if (unknown.length > 0) throw new Error(`unknown session(s): ${unknown.join(', ')} (known: ${CODEX_SESSIONS.map((s) => s.name).join(', ')})`);
  const codexEntry = installCodex();
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a whole number of at least 1, not ${values.runs}`);
  for (const session of CODEX_SESSIONS.filter((s) => wanted.includes(s.name))) {
    process.stdout.write(`Recording ${session.name} against Codex ${version} (${runs} times)\n`);
    const first = await record(codexEntry, session, 1);
    const unstable = new Map<string, Difference>();
    for (let attempt = 2; attempt <= runs; attempt++) {
      const again = await record(codexEntry, session, attempt);
      for (const d of [...diffTraces(first, again), ...diffTraces(again, first)]) unstable.set(variationKey(d), d);
    }
    const variation = [...unstable.values()];
    for (const d of variation) process.stdout.write(`  varies between runs (not compared): ${formatDifference(d, ['one run', 'another'])}\n`);
    writeTraceFixture({ codexVersion: version, session: session.name, summary: session.summary, unstable: variation, messages: first });
    process.stdout.write(`  wrote ${first.length} messages\n`);
  }
  ensureDifferencesFile(version);
  process.stdout.write('Done. Next: npx vitest run electron/server/codex-differential.test.ts (see docs/codex-differences.md)\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`record-codex-traces: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
