import type { ProcessEvent, SupervisedProcess } from '../electron/exec/index.js';
import { isAlive } from '../electron/exec/process-tree.js';

/** Everything a subscriber saw from one process. */
export interface Collected {
  readonly events: ProcessEvent[];
  text(): string;
  bytes(): Buffer;
}

/** Subscribes before any output can arrive (call right after spawn) and keeps every event. */
export function collect(child: SupervisedProcess): Collected {
  const events: ProcessEvent[] = [];
  child.subscribe((event) => events.push(event));
  const bytes = () => Buffer.concat(events.flatMap((event) => (event.type === 'output' ? [event.data] : [])));
  return { events, bytes, text: () => bytes().toString('utf8') };
}

/** Polls `condition` until it holds; fails with `what` after `timeoutMs` (a bound on a hang, not an expected time). */
export async function waitFor(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Pids printed by the command, one per line, after `marker`. */
export function pidsAfter(text: string, marker: string): number[] {
  return [...text.matchAll(new RegExp(`${marker}(\\d+)`, 'g'))].map((match) => Number(match[1]));
}

export function alive(pids: readonly number[]): number[] {
  return pids.filter((pid) => isAlive(pid));
}

/** The text `seq 1 n` prints, with the terminal's CR LF line ends when `crlf`. */
export function seqText(n: number, crlf: boolean): string {
  const end = crlf ? '\r\n' : '\n';
  let text = '';
  for (let i = 1; i <= n; i += 1) text += `${i}${end}`;
  return text;
}
