import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { killAllChildren, spawnTracked } from '../../test-support/child-process.js';
import { stdioConnection, webSocketConnection } from '../../test-support/codex-diff/connections.js';
import { DOC_END, renderDifferences, withRenderedDifferences } from '../../test-support/codex-diff/differences-doc.js';
import {
  differencesPath,
  PENDING_SECTION,
  readDifferencesFile,
  reconcile,
  unexplainedReasons,
  WHY_SECTION,
  writeDifferencesFile,
} from '../../test-support/codex-diff/differences-file.js';
import { runSession, SessionRunError, type ConnectServer, type TraceEntry } from '../../test-support/codex-diff/session-driver.js';
import { makeSessionFolders, MOCK_KEY, runFolders, serverEnvironment, writeSessionHome, type SessionFolders } from '../../test-support/codex-diff/session-home.js';
import type { CodexSession } from '../../test-support/codex-diff/session-types.js';
import { CODEX_SESSIONS } from '../../test-support/codex-diff/sessions.js';
import { diffTraces, formatDifference, type Difference } from '../../test-support/codex-diff/trace-diff.js';
import { latestTraceVersion, readTraceFixture } from '../../test-support/codex-diff/trace-fixtures.js';
import { TraceNormalizer } from '../../test-support/codex-diff/trace-normalizer.js';
import { startMockModelServer } from '../../test-support/mock-model/index.js';
import { cliBin, repoRoot } from '../../test-support/paths.js';
import { startServe } from '../../test-support/serve-process.js';
import { TempDirs } from '../../test-support/temp-dir.js';
import { wireTap } from '../../test-support/wire-conformance.js';

/**
 * The differential test of issue 18: every session of
 * test-support/codex-diff/sessions.ts runs against Wheelhouse over stdio and
 * over WebSocket, and its normalized trace is compared with Codex's recorded
 * one (test-support/codex-traces/<version>/). A key Codex sends that
 * Wheelhouse omits, a different JSON type, a method never sent, or a turn's
 * notifications in another order fails the test, naming session, method and
 * key path, unless differences.json lists it (deliberate, with its reason,
 * or pending under "not yet sent — issue 18"). A listed gap that is gone
 * fails too, so the list shrinks as gaps are fixed. Neither Codex nor the
 * network is needed: the traces are fixtures (npm run record:codex).
 *
 * UPDATE_CODEX_DIFFERENCES=1 rewrites the pending lists and the docs from
 * what this run finds (never the deliberate ones).
 */
const version = latestTraceVersion();
const differences = readDifferencesFile(version);
const updating = process.env.UPDATE_CODEX_DIFFERENCES === '1';
const docsPath = path.join(repoRoot, 'docs', 'codex-differences.md');
const temp = new TempDirs();

type Carrier = 'stdio' | 'websocket';
const CARRIERS: readonly Carrier[] = ['stdio', 'websocket'];

/** Per session and carrier, the differences not explained as deliberate (what the pending list must be). */
const pendingFound = new Map<string, Map<Carrier, readonly Difference[]>>();
const deliberateUsed = new Set<number>();

afterEach(async () => {
  await killAllChildren();
  temp.cleanup();
});

function connector(carrier: Carrier, folders: SessionFolders): ConnectServer {
  const env = { ...serverEnvironment(folders), WHEELHOUSE_HOME: folders.home };
  if (carrier === 'stdio') {
    return () => {
      const server = spawnTracked(process.execPath, [cliBin, 'app-server', '--home', folders.home], { cwd: repoRoot, stdio: ['pipe', 'pipe', 'pipe'], env });
      return Promise.resolve(stdioConnection(server));
    };
  }
  return async () => {
    const serve = await startServe({ home: folders.home, env });
    return webSocketConnection(serve.wsUrl, () => serve.stop());
  };
}

async function differencesOf(session: CodexSession, carrier: Carrier): Promise<readonly Difference[]> {
  const fixture = readTraceFixture(version, session.name);
  const root = temp.make(`wheelhouse-codex-diff-${session.name}-`);
  const folders = makeSessionFolders(root);
  const mock = await startMockModelServer({ apiKey: MOCK_KEY });
  try {
    writeSessionHome(folders.home, session.home, mock.url);
    const tap = wireTap();
    let trace: readonly TraceEntry[];
    try {
      trace = await runSession({
        session,
        mock,
        connect: connector(carrier, folders),
        normalizer: new TraceNormalizer(runFolders(root, folders), os.hostname()),
        ...(tap ? { observer: tap } : {}),
      });
    } catch (error) {
      if (error instanceof SessionRunError) keepTrace(session, carrier, error.trace);
      throw error;
    }
    keepTrace(session, carrier, trace);
    return diffTraces(fixture.messages, trace, fixture.unstable);
  } finally {
    await mock.close();
  }
}

/** For whoever fixes a gap: with CODEX_DIFF_TRACE_DIR set, Wheelhouse's normalized trace, to read beside Codex's fixture. */
function keepTrace(session: CodexSession, carrier: Carrier, trace: readonly TraceEntry[]): void {
  const folder = process.env.CODEX_DIFF_TRACE_DIR;
  if (!folder) return;
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folder, `${session.name}.${carrier}.json`), `${JSON.stringify(trace, null, 1)}\n`);
}

const relative = (file: string) => path.relative(repoRoot, file);

describe(`Wheelhouse sends what Codex ${version} sends`, () => {
  for (const session of CODEX_SESSIONS) {
    for (const carrier of CARRIERS) {
      it(`${session.name} over ${carrier}`, { timeout: 180_000 }, async () => {
        const found = await differencesOf(session, carrier);
        const result = reconcile(found, differences, session.name);
        for (const index of result.deliberateUsed) deliberateUsed.add(index);
        const runs = pendingFound.get(session.name) ?? new Map<Carrier, readonly Difference[]>();
        pendingFound.set(session.name, runs.set(carrier, result.pending));
        if (updating) return;
        const report = [
          ...result.unexplained.map((d) => `  new ${formatDifference(d)}`),
          ...result.fixed.map((d) => `  fixed, so delete its line from ${relative(differencesPath(version))}: ${formatDifference(d)}`),
        ];
        expect(report, `Wheelhouse over ${carrier} differs from Codex ${version} in session "${session.name}":\n${report.join('\n')}\n`).toEqual([]);
      });
    }
  }

  it('shows every deliberate difference in some session (a stale reason is deleted)', () => {
    const ran = [...pendingFound.values()].reduce((n, runs) => n + runs.size, 0);
    expect(ran, 'run the whole file: this check needs every session on every carrier').toBe(CODEX_SESSIONS.length * CARRIERS.length);
    const stale = differences.deliberate.filter((_, index) => !deliberateUsed.has(index));
    expect(stale).toEqual([]);
  });

  it('finds the same differences over stdio and over WebSocket', () => {
    const both = [...pendingFound].filter(([, runs]) => CARRIERS.every((carrier) => runs.has(carrier)));
    expect(both.length, 'run the whole file: this check needs every session on both carriers').toBe(CODEX_SESSIONS.length);
    for (const [session, runs] of both) {
      const [stdio, websocket] = CARRIERS.map((carrier) => (runs.get(carrier) ?? []).map((d) => formatDifference(d)).sort());
      expect(websocket, `session ${session}`).toEqual(stdio);
    }
  });

  it('says why for every pending difference, and for nothing else', () => {
    const { withoutReason, unused } = unexplainedReasons(differences);
    expect(withoutReason.map((d) => formatDifference(d)), `add a reason (by method, or by key path) under "${WHY_SECTION}" in ${relative(differencesPath(version))}`).toEqual([]);
    expect(unused, `delete these reasons from "${WHY_SECTION}": nothing pending needs them`).toEqual([]);
  });

  it('docs/codex-differences.md lists the differences of the file', () => {
    const document = fs.readFileSync(docsPath, 'utf8');
    const rendered = renderDifferences(differences, CODEX_SESSIONS.map((s) => s.name));
    expect(document.includes(DOC_END), 'docs/codex-differences.md has lost the end marker of its generated list').toBe(true);
    if (updating) return;
    expect(withRenderedDifferences(document, rendered), 'run UPDATE_CODEX_DIFFERENCES=1 npx vitest run electron/server/codex-differential.test.ts').toBe(document);
  });
});

afterAll(() => {
  if (!updating || pendingFound.size === 0) return;
  const pending = { ...differences[PENDING_SECTION] };
  for (const [session, runs] of pendingFound) pending[session] = runs.get('stdio') ?? runs.get('websocket') ?? [];
  const updated = { ...differences, [PENDING_SECTION]: pending };
  writeDifferencesFile(updated);
  const document = fs.readFileSync(docsPath, 'utf8');
  fs.writeFileSync(docsPath, withRenderedDifferences(document, renderDifferences(updated, CODEX_SESSIONS.map((s) => s.name))));
});
