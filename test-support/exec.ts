import type { ProcessEvent, ProcessSupervisor, SupervisedProcess } from '../electron/exec/index.js';
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

/**
 * Runs a second process under `supervisor` that does `rounds` rounds of work
 * (print a line, sleep 50 ms) and resolves when it has exited: the yardstick
 * a test holds a process that must stay quiet against. On a loaded machine
 * both slow down alike, so the quiet period grows with the load instead of
 * being a fixed sleep; it lasts at least `rounds` × 50 ms.
 */
export async function referenceWork(supervisor: ProcessSupervisor, cwd: string, rounds = 10): Promise<void> {
  const reference = await supervisor.spawn({
    command: ['sh', '-c', `i=0; while [ $i -lt ${rounds} ]; do i=$((i+1)); echo "round $i"; sleep 0.05; done`],
    cwd,
    tty: false,
  });
  const exit = await reference.exited;
  if (exit.exitCode !== 0) throw new Error(`the reference process failed: ${JSON.stringify(exit)}`);
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
