import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../paths.js';
import type { TraceEntry } from './session-driver.js';
import type { Difference } from './trace-diff.js';

/** Where the recorded traces live: one folder per Codex version. */
export const tracesRoot = path.join(repoRoot, 'test-support', 'codex-traces');

/** One recorded session, as committed. */
export interface TraceFixture {
  readonly codexVersion: string;
  readonly session: string;
  readonly summary: string;
  /** Where Codex's own recordings of the session differed (see diffTraces): not held against Wheelhouse. */
  readonly unstable: readonly Difference[];
  readonly messages: readonly TraceEntry[];
}

export function traceFolder(version: string): string {
  return path.join(tracesRoot, version);
}

export function traceFile(version: string, session: string): string {
  return path.join(traceFolder(version), `${session}.json`);
}

/** The newest recorded Codex version (the folder names are versions). */
export function latestTraceVersion(): string {
  const versions = fs
    .readdirSync(tracesRoot, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && /^\d+\.\d+\.\d+$/.test(entry.name))
    .map((entry) => entry.name)
    .sort(compareVersions);
  const latest = versions.at(-1);
  if (!latest) throw new Error(`no recorded Codex traces under ${tracesRoot}: run npm run record:codex`);
  return latest;
}

export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    const diff = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}

export function readTraceFixture(version: string, session: string): TraceFixture {
  const file = traceFile(version, session);
  if (!fs.existsSync(file)) throw new Error(`no trace of session "${session}" for Codex ${version} (${file}): run npm run record:codex`);
  return JSON.parse(fs.readFileSync(file, 'utf8')) as TraceFixture;
}

/** Writes a trace with one message per line, so a re-recording's diff shows which messages changed. */
export function writeTraceFixture(fixture: TraceFixture): void {
  fs.mkdirSync(traceFolder(fixture.codexVersion), { recursive: true });
  const messages = fixture.messages.map((entry) => `    ${JSON.stringify(entry)}`).join(',\n');
  const text = [
    '{',
    `  "codexVersion": ${JSON.stringify(fixture.codexVersion)},`,
    `  "session": ${JSON.stringify(fixture.session)},`,
    `  "summary": ${JSON.stringify(fixture.summary)},`,
    `  "unstable": ${JSON.stringify(fixture.unstable)},`,
    '  "messages": [',
    messages,
    '  ]',
    '}',
    '',
  ].join('\n');
  fs.writeFileSync(traceFile(fixture.codexVersion, fixture.session), text);
}
