import { PENDING_SECTION, WHY_SECTION, differenceKey, reasonKeyOf, type DifferencesFile } from './differences-file.js';
import type { Difference } from './trace-diff.js';

/** The generated part of docs/codex-differences.md sits between these lines. */
export const DOC_START = '<!-- generated from test-support/codex-traces/<version>/differences.json: do not edit by hand -->';
export const DOC_END = '<!-- end of generated list -->';

const code = (text: string) => `\`${text.replaceAll('|', '\\|')}\``;

function describeDifference(d: Difference): string {
  switch (d.kind) {
    case 'notSent':
      return 'never sent';
    case 'missing':
      return `${code(d.path ?? '')} missing (Codex sends ${d.codex ?? '?'})`;
    case 'type':
      return `${code(d.path ?? '')} is ${d.wheelhouse ?? '?'}, Codex sends ${d.codex ?? '?'}`;
    case 'order':
      return `${d.path ?? ''}: Codex ${code(d.codex ?? '')}, Wheelhouse ${code(d.wheelhouse ?? '')}`;
    default: {
      const unreachable: never = d.kind;
      return String(unreachable);
    }
  }
}

/** A deliberate difference in words (it has no types: it holds whatever Wheelhouse sends there). */
const DELIBERATE_WORDS: Record<Difference['kind'], (path: string | undefined) => string> = {
  notSent: () => 'never sent',
  missing: (path) => (path === undefined ? 'keys left out' : `${code(path)} left out`),
  type: (path) => (path === undefined ? 'other JSON types' : `${code(path)} has another JSON type`),
  order: (path) => (path === undefined ? 'turns in another order' : `${path} in another order`),
};

/** The Markdown list of the deliberate differences and the pending ones, grouped by method. */
export function renderDifferences(file: DifferencesFile, sessions: readonly string[]): string {
  const lines = [DOC_START.replace('<version>', file.codexVersion), ''];
  lines.push(`### Deliberate differences (${file.deliberate.length})`, '');
  if (file.deliberate.length === 0) lines.push('None.');
  else {
    lines.push('| Method | Difference | Why |', '| --- | --- | --- |');
    for (const d of file.deliberate) {
      const what = DELIBERATE_WORDS[d.kind](d.path);
      const where = d.sessions ? ` (${d.sessions.join(', ')})` : '';
      lines.push(`| ${code(d.method)} | ${what}${where} | ${d.reason} |`);
    }
  }
  const pending = file[PENDING_SECTION];
  const total = Object.values(pending).reduce((sum, list) => sum + list.length, 0);
  lines.push('', `### Not yet sent — issue 18 (${total} across ${Object.keys(pending).length} sessions)`, '');
  lines.push('| Session | Pending |', '| --- | --- |');
  for (const session of sessions) lines.push(`| ${session} | ${pending[session]?.length ?? 0} |`);
  lines.push('');
  const why = file[WHY_SECTION];
  // A reason keyed by a key path (emittedAtMs) covers that path in every method: said once.
  const byPath = new Map<string, Set<string>>();
  const byMethod = new Map<string, Map<string, { difference: Difference; sessions: string[] }>>();
  for (const session of sessions) {
    for (const d of pending[session] ?? []) {
      const reason = reasonKeyOf(d, file);
      if (reason !== undefined && reason !== d.method) {
        byPath.set(reason, (byPath.get(reason) ?? new Set<string>()).add(d.method));
        continue;
      }
      const entries = byMethod.get(d.method) ?? new Map<string, { difference: Difference; sessions: string[] }>();
      byMethod.set(d.method, entries);
      const key = differenceKey(d);
      const entry = entries.get(key) ?? { difference: d, sessions: [] };
      entries.set(key, entry);
      entry.sessions.push(session);
    }
  }
  for (const [path, methods] of [...byPath].sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(`- ${code(path)}, in ${[...methods].sort().map(code).join(', ')}: ${why[path] ?? ''}`);
  }
  for (const method of [...byMethod.keys()].sort()) {
    lines.push(`- ${code(method)}: ${why[method] ?? '(no reason given)'}`);
    for (const { difference, sessions: where } of byMethod.get(method)!.values()) {
      const scope = where.length === sessions.length ? 'every session' : where.join(', ');
      lines.push(`  - ${describeDifference(difference)} — ${scope}`);
    }
  }
  if (total === 0) lines.push('Nothing is pending: Wheelhouse sends everything Codex sends in these sessions, apart from the deliberate differences above.');
  lines.push('', DOC_END);
  return lines.join('\n');
}

/** Replaces the generated part of the document; throws when its markers are missing. */
export function withRenderedDifferences(document: string, rendered: string): string {
  const start = document.indexOf(DOC_START.slice(0, DOC_START.indexOf('<version>')));
  const end = document.indexOf(DOC_END);
  if (start < 0 || end < start) throw new Error('docs/codex-differences.md has lost the markers of its generated list');
  return document.slice(0, start) + rendered + document.slice(end + DOC_END.length);
}
