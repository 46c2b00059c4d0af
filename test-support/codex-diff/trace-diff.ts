import type { TraceEntry } from './session-driver.js';
import { eventsOf, parentOf, shapeOf, turnSequencesOf, type JsonType, type TurnSequence } from './trace-shape.js';

/**
 * Where Wheelhouse's trace of a session breaks what a Codex client relies on
 * in Codex's trace of the same session:
 *
 * - `notSent`: a method Codex sends (a notification, a server request, the
 *   answer of a request) that Wheelhouse never sends in the session;
 * - `missing`: a key path Codex sends that Wheelhouse omits (only the
 *   outermost: a missing object is one difference, not one per key);
 * - `type`: a key path where Wheelhouse sends a JSON type Codex never sends
 *   there, or only `null` where Codex sends a value;
 * - `order`: a turn whose notifications, reduced to the events both send,
 *   come in another order.
 *
 * Keys and methods Wheelhouse adds are never differences.
 */
export type DifferenceKind = 'notSent' | 'missing' | 'type' | 'order';

export interface Difference {
  readonly kind: DifferenceKind;
  /** The method, or `turn` for an order difference. */
  readonly method: string;
  /** The key path; for an order difference, which turn (`<thread:1> turn 2`: the thread's second). */
  readonly path?: string;
  /** What Codex sends there (types, or the order of events). */
  readonly codex?: string;
  /** What Wheelhouse sends there. */
  readonly wheelhouse?: string;
}

/**
 * `unstable` lists where Codex's own recordings of the session differ from
 * each other (the recorder runs each session several times): a method Codex
 * does not always send, a path whose type varies, a turn whose notifications
 * come in more than one order. Wheelhouse is not held to one side of Codex's
 * own variation: such paths are not compared, and a turn passes in any order
 * Codex was seen to produce.
 */
export function diffTraces(codex: readonly TraceEntry[], wheelhouse: readonly TraceEntry[], unstable: readonly Difference[] = []): Difference[] {
  const variable = (d: Difference) =>
    unstable.some((u) => u.kind !== 'order' && u.method === d.method && (u.kind === 'notSent' || u.path === d.path));
  return [...shapeDifferences(codex, wheelhouse).filter((d) => !variable(d)), ...orderDifferences(codex, wheelhouse, unstable)];
}

const types = (set: ReadonlySet<JsonType>) => [...set].sort().join('|');

function shapeDifferences(codex: readonly TraceEntry[], wheelhouse: readonly TraceEntry[]): Difference[] {
  const theirs = shapeOf(codex);
  const ours = shapeOf(wheelhouse);
  const found: Difference[] = [];
  for (const [method, codexPaths] of [...theirs].sort(([a], [b]) => a.localeCompare(b))) {
    const ourPaths = ours.get(method);
    if (!ourPaths) {
      found.push({ kind: 'notSent', method });
      continue;
    }
    for (const [path, codexTypes] of [...codexPaths].sort(([a], [b]) => a.localeCompare(b))) {
      const ourTypes = ourPaths.get(path);
      if (!ourTypes) {
        const parent = parentOf(path);
        // Report only the outermost missing path: its parent must be there, as the container it is in Codex.
        if (parent.path === '' || ourPaths.get(parent.path)?.has(parent.type)) found.push({ kind: 'missing', method, path, codex: types(codexTypes) });
        continue;
      }
      if (typeMismatch(codexTypes, ourTypes)) found.push({ kind: 'type', method, path, codex: types(codexTypes), wheelhouse: types(ourTypes) });
    }
  }
  return found;
}

/**
 * Wheelhouse's types at a path break a Codex client when it sends a type
 * Codex never sends there, or null where Codex never does. Where Codex sent
 * only null (no value in this session), any value is allowed.
 */
function typeMismatch(codex: ReadonlySet<JsonType>, ours: ReadonlySet<JsonType>): boolean {
  if (![...codex].some((t) => t !== 'null')) return false;
  return [...ours].some((t) => !codex.has(t));
}

export const EVENT_SEPARATOR = ' > ';

/**
 * Each turn of Codex's trace against the same turn of Wheelhouse's (the nth
 * completed turn of the same thread), both reduced to the events the other
 * server sends at all: an event only one of them has is a `notSent` or
 * `missing` difference, not an order one.
 */
function orderDifferences(codex: readonly TraceEntry[], wheelhouse: readonly TraceEntry[], unstable: readonly Difference[]): Difference[] {
  const name = (t: TurnSequence) => `${t.thread} turn ${t.index}`;
  const ourTurns = new Map(turnSequencesOf(wheelhouse).map((t) => [name(t), t.events]));
  const ourEvents = eventsOf(wheelhouse);
  const theirEvents = eventsOf(codex);
  const sameOrder = (theirs: readonly string[], ours: readonly string[]) =>
    collapse(theirs.filter((e) => ourEvents.has(e))).join(EVENT_SEPARATOR) === collapse(ours.filter((e) => theirEvents.has(e))).join(EVENT_SEPARATOR);
  const found: Difference[] = [];
  for (const turn of turnSequencesOf(codex)) {
    const path = name(turn);
    const ours = ourTurns.get(path);
    if (!ours) {
      found.push({ kind: 'order', method: 'turn', path, codex: turn.events.join(EVENT_SEPARATOR), wheelhouse: '(the turn never completes)' });
      continue;
    }
    const variants = unstable
      .filter((u) => u.kind === 'order' && u.path === path)
      .flatMap((u) => [u.codex, u.wheelhouse])
      .filter((order): order is string => order !== undefined)
      .map((order) => order.split(EVENT_SEPARATOR));
    if ([turn.events, ...variants].some((order) => sameOrder(order, ours))) continue;
    found.push({
      kind: 'order',
      method: 'turn',
      path,
      codex: collapse(turn.events.filter((e) => ourEvents.has(e))).join(EVENT_SEPARATOR),
      wheelhouse: collapse(ours.filter((e) => theirEvents.has(e))).join(EVENT_SEPARATOR),
    });
  }
  return found;
}

function collapse(events: readonly string[]): string[] {
  return events.filter((e, i) => e !== events[i - 1]);
}

/** One line a person reads: `missing: thread/start result.instructionSources (Codex sends array)`; `names` label the two traces. */
export function formatDifference(d: Difference, names: readonly [string, string] = ['Codex', 'Wheelhouse']): string {
  const [theirs, ours] = names;
  switch (d.kind) {
    case 'notSent':
      return `not sent: ${d.method}`;
    case 'missing':
      return `missing: ${d.method} ${d.path ?? ''} (${theirs} sends ${d.codex ?? '?'})`;
    case 'type':
      return `type: ${d.method} ${d.path ?? ''} (${theirs} sends ${d.codex ?? '?'}, ${ours} ${d.wheelhouse ?? '?'})`;
    case 'order':
      return `order: ${d.path ?? ''}\n      ${theirs}: ${d.codex ?? ''}\n      ${ours}: ${d.wheelhouse ?? ''}`;
    default: {
      const unreachable: never = d.kind;
      return String(unreachable);
    }
  }
}
