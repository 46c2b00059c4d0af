/** How a tool call reads in the conversation. */
export interface ToolCallLabel {
  /** What the agent did, in words: "Read file". */
  readonly title: string;
  /** The argument that matters most: a path, a query; null when there is none. */
  readonly subject: string | null;
}

const TITLES: Readonly<Record<string, string>> = {
  list_directory: 'Listed folder',
  read_file: 'Read file',
  search_text: 'Searched',
  job_start: 'Started a background job',
  job_status: 'Checked a job',
  job_output: 'Read job output',
};

/** A title and a one-line summary of the arguments of a tool call. */
export function labelToolCall(tool: string, args: unknown): ToolCallLabel {
  const title = TITLES[tool] ?? humanize(tool);
  return { title, subject: summarizeArguments(args) };
}

/** The most telling argument: a path or query first, else `key: value` pairs, clipped to one line. */
export function summarizeArguments(args: unknown): string | null {
  if (typeof args === 'string') return clip(args);
  if (typeof args !== 'object' || args === null) return args === undefined || args === null ? null : clip(String(args));
  const record = args as Record<string, unknown>;
  for (const key of ['query', 'path', 'command', 'url', 'file']) {
    const value = record[key];
    if (typeof value === 'string' && value.trim() !== '') {
      const extra = key === 'query' && typeof record['path'] === 'string' ? ` in ${record['path']}` : '';
      return clip(key === 'query' ? `“${value}”${extra}` : `${value}${lineRange(record)}`);
    }
  }
  const pairs = Object.entries(record).map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`);
  return pairs.length > 0 ? clip(pairs.join(', ')) : null;
}

/** Arguments pretty-printed for the expanded card. */
export function formatArguments(args: unknown): string {
  if (typeof args === 'string') return args;
  return JSON.stringify(args, null, 2) ?? String(args);
}

function lineRange(record: Record<string, unknown>): string {
  const start = record['startLine'];
  const count = record['lineCount'];
  if (typeof start !== 'number') return '';
  return typeof count === 'number' ? ` (lines ${start}–${start + count - 1})` : ` (from line ${start})`;
}

function humanize(tool: string): string {
  const words = tool.replace(/[_-]+/g, ' ').trim();
  return words.length > 0 ? words[0]!.toUpperCase() + words.slice(1) : tool;
}

function clip(text: string, max = 120): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
