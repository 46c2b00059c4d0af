/**
 * Makes a trace independent of the run: every generated id becomes a stable
 * placeholder named by what it identifies and numbered by first appearance
 * (`<thread:1>`, `<turn:2>`, `<queuedSubmission:1>`), times become 0 (or
 * `<time>` when sent as text), the run's folders become `<home>`, `<cwd>`,
 * `<work>`, and machine details (`userAgent`, host name, process ids, dates
 * in file names) are blanked. JSON types and key paths are kept, so the
 * normalized trace still says what a client receives.
 *
 * One normalizer follows a whole session in order (both directions), so the
 * same id is the same placeholder everywhere, and a session's params can name
 * a placeholder the normalizer turns back into the real value.
 */

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const PLACEHOLDER = /^<[A-Za-z]+(?::\d+)?>$/;
/** Rollout file names and folders carry the date and time of the run. */
const DATE_TIME = /\d{4}-\d{2}-\d{2}T\d{2}[-:]\d{2}[-:]\d{2}(?:\.\d+)?Z?/g;
const DATE_FOLDERS = /\/\d{4}\/\d{2}\/\d{2}\//g;

/** Keys whose numeric value is a point in time or a duration. */
function isTimeKey(key: string): boolean {
  return /(?:At|AtMs|Ms|Timestamp)$/.test(key) || key === 'timestamp';
}

/** Keys whose value depends on the machine or the process, not on the session. */
const MACHINE_KEYS: Readonly<Record<string, string>> = {
  userAgent: '<userAgent>',
  cliVersion: '<version>',
  processId: '<pid>',
  pid: '<pid>',
};

export interface RunFolder {
  /** Placeholder name without brackets: `home`, `cwd`. */
  readonly label: string;
  readonly path: string;
}

export class TraceNormalizer {
  private readonly labelOf = new Map<string, string>();
  private readonly valueOf = new Map<string, string>();
  private readonly counters = new Map<string, number>();
  /** Longest first, so `<cwd>` wins over the `<work>` folder it sits in. */
  private readonly folders: readonly RunFolder[];

  constructor(folders: readonly RunFolder[], private readonly hostName?: string) {
    this.folders = [...folders].sort((a, b) => b.path.length - a.path.length);
  }

  /** The normalized copy of one message (learning the ids it introduces). */
  normalize(message: unknown): unknown {
    return this.walk(message, []);
  }

  /** Turns the placeholders in a session's params back into this run's values. */
  resolve(value: unknown): unknown {
    if (typeof value === 'string') return this.resolveString(value);
    if (Array.isArray(value)) return value.map((v) => this.resolve(v));
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.resolve(v)]));
    }
    return value;
  }

  private resolveString(text: string): string {
    if (!PLACEHOLDER.test(text)) return text;
    const folder = this.folders.find((f) => `<${f.label}>` === text);
    if (folder) return folder.path;
    const real = this.valueOf.get(text);
    if (real === undefined) throw new Error(`the session names ${text}, which the server has not handed out yet`);
    return real;
  }

  private walk(value: unknown, keys: readonly string[]): unknown {
    if (Array.isArray(value)) return value.map((v) => this.walk(v, [...keys, '[]']));
    if (value !== null && typeof value === 'object') {
      // Keys may be ids too (`readStates` is keyed by thread id).
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [this.normalizeString(k, keys), this.walk(v, [...keys, k])]));
    }
    const key = keys.at(-1) ?? '';
    if (typeof value === 'number' && (isTimeKey(key) || key in MACHINE_KEYS)) return 0;
    if (typeof value !== 'string') return value;
    if (key in MACHINE_KEYS) return MACHINE_KEYS[key];
    if (isTimeKey(key) && !Number.isNaN(Date.parse(value))) return '<time>';
    if (this.hostName !== undefined && value === this.hostName) return '<hostName>';
    return this.normalizeString(value, keys);
  }

  private normalizeString(text: string, keys: readonly string[]): string {
    let out = text;
    for (const folder of this.folders) out = out.split(folder.path).join(`<${folder.label}>`);
    out = out.replace(UUID, (id) => this.label(id, kindOf(keys)));
    if (out !== text) out = out.replace(DATE_TIME, '<datetime>').replace(DATE_FOLDERS, '/<date>/');
    return out;
  }

  private label(id: string, kind: string): string {
    const known = this.labelOf.get(id.toLowerCase());
    if (known) return known;
    const n = (this.counters.get(kind) ?? 0) + 1;
    this.counters.set(kind, n);
    const label = `<${kind}:${n}>`;
    this.labelOf.set(id.toLowerCase(), label);
    this.valueOf.set(label, id);
    return label;
  }
}

/**
 * What an id identifies, from where it first appears: `thread.id` and
 * `threadId` name a thread, `turns[].id` a turn, `queuedSubmissionIds[]` a
 * queued submission; anything else is an `id`.
 */
function kindOf(keys: readonly string[]): string {
  const named = [...keys].reverse().filter((k) => k !== '[]');
  const key = named[0] ?? '';
  const listed = keys.at(-1) === '[]';
  let kind: string;
  if (key === 'id') kind = named[1] ?? 'id';
  else if (/Ids?$/.test(key)) kind = key.replace(/Ids?$/, '');
  else if (listed && key.endsWith('s')) kind = key;
  else kind = 'id';
  const name = singular(kind) || 'id';
  return KIND_ALIASES[name] ?? name;
}

/** Two names for one thing: Wheelhouse also calls a queued submission by seed 003's name, a queued turn. */
const KIND_ALIASES: Readonly<Record<string, string>> = { queuedTurn: 'queuedSubmission' };

function singular(word: string): string {
  if (word === 'data' || word === 'id') return word;
  return word.endsWith('s') ? word.slice(0, -1) : word;
}
