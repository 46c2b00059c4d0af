import fs from 'node:fs';
import path from 'node:path';
import type { Difference, DifferenceKind } from './trace-diff.js';
import { compareVersions, traceFolder, tracesRoot } from './trace-fixtures.js';

/**
 * The differences file beside the traces (`differences.json`): each
 * difference from Codex that Wheelhouse keeps on purpose, with the reason,
 * and, per session, the gaps not fixed yet. A pending gap is listed exactly
 * (kind, method, key path, types), so the test fails both when a new gap
 * appears and when a listed one is fixed: the list only ever shrinks by
 * someone deleting the line.
 */
export const PENDING_SECTION = 'not yet sent — issue 18';
/** Why each pending gap is there: keyed by method, or by a key path many methods share (`emittedAtMs`). */
export const WHY_SECTION = 'why not yet';

export interface DeliberateDifference {
  readonly kind: DifferenceKind;
  readonly method: string;
  /** The key path; absent, every path of this kind and method. */
  readonly path?: string;
  /** The sessions it is expected in; absent, any. */
  readonly sessions?: readonly string[];
  readonly reason: string;
}

export interface DifferencesFile {
  readonly codexVersion: string;
  readonly deliberate: readonly DeliberateDifference[];
  readonly [PENDING_SECTION]: Readonly<Record<string, readonly Difference[]>>;
  readonly [WHY_SECTION]: Readonly<Record<string, string>>;
}

export function differencesPath(version: string): string {
  return path.join(traceFolder(version), 'differences.json');
}

export function readDifferencesFile(version: string): DifferencesFile {
  return JSON.parse(fs.readFileSync(differencesPath(version), 'utf8')) as DifferencesFile;
}

/** Writes the file with one difference per line, so a change to the list is a one-line diff. */
export function writeDifferencesFile(file: DifferencesFile): void {
  const line = (value: unknown) => JSON.stringify(value);
  const sessions = Object.entries(file[PENDING_SECTION]).sort(([a], [b]) => a.localeCompare(b));
  const pending = sessions.map(([session, list]) =>
    list.length === 0 ? `    ${line(session)}: []` : `    ${line(session)}: [\n${list.map((d) => `      ${line(d)}`).join(',\n')}\n    ]`,
  );
  const why = Object.entries(file[WHY_SECTION]).map(([key, reason]) => `    ${line(key)}: ${line(reason)}`);
  const text = [
    '{',
    `  "codexVersion": ${line(file.codexVersion)},`,
    '  "deliberate": [',
    file.deliberate.map((d) => `    ${line(d)}`).join(',\n'),
    '  ],',
    `  ${line(PENDING_SECTION)}: {`,
    pending.join(',\n'),
    '  },',
    ...(why.length === 0 ? [`  ${line(WHY_SECTION)}: {}`] : [`  ${line(WHY_SECTION)}: {`, why.join(',\n'), '  }']),
    '}',
    '',
  ].join('\n');
  fs.writeFileSync(differencesPath(file.codexVersion), text);
}

/** Creates the file of a newly recorded version, carrying over the deliberate differences of the newest older one. */
export function ensureDifferencesFile(version: string): void {
  if (fs.existsSync(differencesPath(version))) return;
  fs.mkdirSync(traceFolder(version), { recursive: true });
  const older = fs
    .readdirSync(tracesRoot)
    .filter((name) => name !== version && fs.existsSync(differencesPath(name)))
    .sort(compareVersions)
    .at(-1);
  const previous = older ? readDifferencesFile(older) : undefined;
  writeDifferencesFile({ codexVersion: version, deliberate: previous?.deliberate ?? [], [PENDING_SECTION]: {}, [WHY_SECTION]: previous?.[WHY_SECTION] ?? {} });
}

export const differenceKey = (d: Difference) => JSON.stringify([d.kind, d.method, d.path ?? null, d.codex ?? null, d.wheelhouse ?? null]);

function explains(entry: DeliberateDifference, d: Difference, session: string): boolean {
  return (
    entry.kind === d.kind &&
    entry.method === d.method &&
    (entry.path === undefined || entry.path === d.path) &&
    (entry.sessions === undefined || entry.sessions.includes(session))
  );
}

/** How one session's differences compare with the file. */
export interface Reconciled {
  /** Found, and neither deliberate nor listed as pending: a new gap. */
  readonly unexplained: readonly Difference[];
  /** Listed as pending for the session, yet not found: fixed, so the line must go. */
  readonly fixed: readonly Difference[];
  /** Found and not deliberate: what the pending list of the session should be. */
  readonly pending: readonly Difference[];
  /** Indexes of the deliberate entries that explained something. */
  readonly deliberateUsed: ReadonlySet<number>;
}

export function reconcile(found: readonly Difference[], file: DifferencesFile, session: string): Reconciled {
  const deliberateUsed = new Set<number>();
  const pending: Difference[] = [];
  for (const d of found) {
    const index = file.deliberate.findIndex((entry) => explains(entry, d, session));
    if (index >= 0) deliberateUsed.add(index);
    else pending.push(d);
  }
  const listed = file[PENDING_SECTION][session] ?? [];
  const listedKeys = new Set(listed.map(differenceKey));
  const foundKeys = new Set(pending.map(differenceKey));
  return {
    unexplained: pending.filter((d) => !listedKeys.has(differenceKey(d))),
    fixed: listed.filter((d) => !foundKeys.has(differenceKey(d))),
    pending,
    deliberateUsed,
  };
}

/** The reason a pending difference is listed under: its method's, else its key path's. */
export function reasonKeyOf(d: Difference, file: DifferencesFile): string | undefined {
  const why = file[WHY_SECTION];
  if (d.path !== undefined && d.path in why) return d.path;
  return d.method in why ? d.method : undefined;
}

/** Pending differences no reason covers, and reasons that cover nothing pending. */
export function unexplainedReasons(file: DifferencesFile): { withoutReason: Difference[]; unused: string[] } {
  const used = new Set<string>();
  const withoutReason: Difference[] = [];
  for (const list of Object.values(file[PENDING_SECTION])) {
    for (const d of list) {
      const key = reasonKeyOf(d, file);
      if (key === undefined) withoutReason.push(d);
      else used.add(key);
    }
  }
  return { withoutReason, unused: Object.keys(file[WHY_SECTION]).filter((key) => !used.has(key)) };
}
