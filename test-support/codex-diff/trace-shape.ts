import type { TraceEntry } from './session-driver.js';

/**
 * What a client can rely on in a trace, independent of values: for every
 * method, each key path the server sent with the JSON types seen there, and
 * for every turn the order of its notifications.
 *
 * Key paths start at the message (`result.thread.turns`, `params.item`,
 * `emittedAtMs`); `[]` is an array's elements; an object with a string `type`
 * is also seen as `path<type>`, so each variant of a union (`item<userMessage>`,
 * `status<active>`) has keys of its own.
 */

export type JsonType = 'null' | 'boolean' | 'number' | 'string' | 'array' | 'object';

/** Per method, per key path, the JSON types sent there. */
export type TraceShape = Map<string, Map<string, Set<JsonType>>>;

/** The notifications (and server requests) of one turn, in order, repeats collapsed. */
export interface TurnSequence {
  readonly thread: string;
  /** Which of the thread's turns: the nth `turn/completed` of the thread (ids differ between servers, e.g. in a fork). */
  readonly index: number;
  readonly events: readonly string[];
}

type Message = Record<string, unknown>;

/** A server message's method, and whether it answers a request of that method. */
function methodOf(message: Message, requests: ReadonlyMap<unknown, string>): { method: string; response: boolean } | undefined {
  if (typeof message.method === 'string') return { method: message.method, response: false };
  const method = requests.get(message.id);
  return method === undefined ? undefined : { method, response: true };
}

export function shapeOf(trace: readonly TraceEntry[]): TraceShape {
  const shape: TraceShape = new Map();
  const requests = new Map<unknown, string>();
  for (const { from, message } of trace) {
    if (from === 'client') {
      if (typeof message.method === 'string' && message.id !== undefined) requests.set(message.id, message.method);
      continue;
    }
    const kind = methodOf(message, requests);
    if (!kind) continue;
    let paths = shape.get(kind.method);
    if (!paths) {
      paths = new Map();
      shape.set(kind.method, paths);
    }
    for (const [key, value] of Object.entries(message)) {
      // The method is the name; a response's id is the client's own.
      if (key === 'method' || (kind.response && key === 'id')) continue;
      collect(value, keySegment('', key), paths);
    }
  }
  return shape;
}

/** Every key path of one message (`result.data[].tools.echo`), as shapeOf records them. */
export function keyPathsOf(message: Record<string, unknown>): Set<string> {
  const paths = new Map<string, Set<JsonType>>();
  for (const [key, value] of Object.entries(message)) collect(value, keySegment('', key), paths);
  return new Set(paths.keys());
}

function collect(value: unknown, path: string, paths: Map<string, Set<JsonType>>): void {
  add(paths, path, typeOf(value));
  if (Array.isArray(value)) {
    for (const element of value) collect(element, `${path}[]`, paths);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const record = value as Record<string, unknown>;
  const base = typeof record.type === 'string' ? `${path}<${record.type}>` : path;
  if (base !== path) add(paths, base, 'object');
  for (const [key, child] of Object.entries(record)) collect(child, keySegment(base, key), paths);
}

function add(paths: Map<string, Set<JsonType>>, path: string, type: JsonType): void {
  let types = paths.get(path);
  if (!types) {
    types = new Set();
    paths.set(path, types);
  }
  types.add(type);
}

/** `parent.key`, or `parent["odd key"]` for keys that are not plain names (config key paths, tool names). */
function keySegment(parent: string, key: string): string {
  if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) return parent === '' ? key : `${parent}.${key}`;
  return `${parent}[${JSON.stringify(key)}]`;
}

export function typeOf(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'boolean':
      return 'boolean';
    case 'number':
      return 'number';
    case 'string':
      return 'string';
    default:
      return 'object';
  }
}

/** The path a key path hangs from, and the JSON type that parent must be: `''` is the message itself. */
export function parentOf(path: string): { path: string; type: JsonType } {
  if (path.endsWith('[]')) return { path: path.slice(0, -2), type: 'array' };
  if (path.endsWith('>')) return { path: path.slice(0, path.lastIndexOf('<')), type: 'object' };
  if (path.endsWith('"]')) return { path: path.slice(0, path.lastIndexOf('["')), type: 'object' };
  const dot = path.lastIndexOf('.');
  return { path: dot === -1 ? '' : path.slice(0, dot), type: 'object' };
}

/**
 * Splits each thread's notifications and server requests into turns, each
 * ending at its `turn/completed`. An event is its method, with the item's or
 * the status's type where it has one (`item/started<commandExecution>`).
 */
export function turnSequencesOf(trace: readonly TraceEntry[]): TurnSequence[] {
  const open = new Map<string, string[]>();
  const completed = new Map<string, number>();
  const turns: TurnSequence[] = [];
  for (const { from, message } of trace) {
    if (from !== 'server' || typeof message.method !== 'string') continue;
    const params = (message.params ?? {}) as Record<string, unknown>;
    const thread = threadOf(params);
    if (thread === undefined) continue;
    const events = open.get(thread) ?? [];
    open.set(thread, events);
    const label = eventLabel(message.method, params);
    if (events.at(-1) !== label) events.push(label);
    if (message.method === 'turn/completed') {
      const index = (completed.get(thread) ?? 0) + 1;
      completed.set(thread, index);
      turns.push({ thread, index, events: [...events] });
      open.set(thread, []);
    }
  }
  return turns;
}

/** Every event a trace has on any thread (the events turnSequencesOf labels). */
export function eventsOf(trace: readonly TraceEntry[]): Set<string> {
  const events = new Set<string>();
  for (const { from, message } of trace) {
    if (from !== 'server' || typeof message.method !== 'string') continue;
    const params = (message.params ?? {}) as Record<string, unknown>;
    if (threadOf(params) !== undefined) events.add(eventLabel(message.method, params));
  }
  return events;
}

function threadOf(params: Record<string, unknown>): string | undefined {
  if (typeof params.threadId === 'string') return params.threadId;
  const thread = params.thread as { id?: unknown } | undefined;
  return typeof thread?.id === 'string' ? thread.id : undefined;
}

function eventLabel(method: string, params: Record<string, unknown>): string {
  const variant = (params.item as { type?: unknown } | undefined)?.type ?? (params.status as { type?: unknown } | undefined)?.type;
  return typeof variant === 'string' ? `${method}<${variant}>` : method;
}
