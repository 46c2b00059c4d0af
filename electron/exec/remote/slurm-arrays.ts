import type { DetachedRunState, DetachedTask } from '../detached/detached-run.js';
import { describeTasks } from '../detached/array-tasks.js';
import { parseExit } from '../detached/run-log-file.js';

/**
 * Slurm job arrays: one `sbatch --array` submission, one Slurm job id, N
 * tasks. Every task appends its lines to the run's one log, each line begun
 * with `[task <index>] ` (one write per line, so lines of tasks never mix),
 * and records its status in `exit-<index>`. The run's state summarises the
 * tasks: running while any waits or runs; then completed if all completed,
 * else ended with the first failed task's status and words naming the rest.
 */

/** What Slurm said about one record of the job: a task, or a range of tasks still pending together. */
export interface SlurmArrayRecord {
  /** `ArrayTaskId` (`3`, `0-7`, `1,4-5`, `0-7%2`). */
  readonly taskIds: string;
  readonly jobState: string;
  readonly exitCode: string;
  readonly reason: string;
}

/** `--array` for these indices, compact (`0-3`, `1,3`). */
export function arraySpec(indices: readonly number[]): string {
  const sorted = [...new Set(indices)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j += 1;
    parts.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

/** `0-3`, `1,4-5`, `0-7%2` → the indices. */
export function expandTaskIds(text: string): number[] {
  const out: number[] = [];
  for (const part of text.replace(/%\d+$/, '').split(',')) {
    const [from, to] = part.split('-').map(Number);
    if (!Number.isInteger(from)) continue;
    const last = Number.isInteger(to) ? Math.min(to!, from! + 100_000) : from!;
    for (let index = from!; index <= last; index += 1) out.push(index);
  }
  return out;
}

/** The lines of an array task's batch script: the command's output, line by line, marked with the task. */
export function arrayTaskScript(dirWord: string, commandLine: string): string[] {
  return [
    `dir=${dirWord}`,
    't=${SLURM_ARRAY_TASK_ID:-0}',
    // Read by the shell, a line at a time, so each line is in the log as soon as it is printed (mawk, Debian's awk, holds its input back in blocks).
    `{ ${commandLine}; printf '%s\\n' "$?" > "$dir/code-$t"; } 2>&1 | while IFS= read -r line || [ -n "$line" ]; do printf '%s\\n' "[task $t] $line"; done >> "$dir/output.log"`,
    'code=$(cat "$dir/code-$t" 2>/dev/null); [ -n "$code" ] || code=1',
    `printf 'exit %s\\n' "$code" > "$dir/exit-$t.tmp" && mv -f "$dir/exit-$t.tmp" "$dir/exit-$t"`,
    'exit $code',
  ];
}

/** The look's lines about an array: one per record Slurm knows (`scontrol`, else `sacct`), then each task's recorded status. */
export function arrayLookScript(): string[] {
  return [
    `scontrol show job -o $id 2>/dev/null | while read -r line; do printf 'task %s\\n' "$(printf '%s' "$line" | tr ' ' '\\n' | grep -E '^(ArrayTaskId|JobState|ExitCode|Reason)=' | tr '\\n' ' ')" >&2; done`,
    `if ! scontrol show job -o $id >/dev/null 2>&1; then sacct -n -P -j $id -o JobID,State,ExitCode 2>/dev/null | grep -E '^[0-9]+_[0-9]+\\|' | sed 's/^[0-9]*_\\([0-9]*\\)|\\([^|]*\\)|\\(.*\\)$/task ArrayTaskId=\\1 JobState=\\2 ExitCode=\\3/' >&2; fi`,
    `for f in "$dir"/exit-*; do [ -f "$f" ] && printf 'texit %s %s\\n' "\${f##*-}" "$(cat "$f")" >&2; done`,
  ];
}

/** The records and recorded statuses a look printed. */
export function parseArrayLook(stderr: string): { records: SlurmArrayRecord[]; exits: Map<number, string> } {
  const records: SlurmArrayRecord[] = [];
  const exits = new Map<number, string>();
  for (const line of stderr.split('\n')) {
    if (line.startsWith('task ')) {
      const field = (name: string) => new RegExp(`${name}=(\\S+)`).exec(line)?.[1] ?? '';
      const taskIds = field('ArrayTaskId');
      if (taskIds) records.push({ taskIds, jobState: field('JobState'), exitCode: field('ExitCode'), reason: field('Reason') });
    } else {
      const match = /^texit (\d+) (exit .*)$/.exec(line);
      if (match) exits.set(Number(match[1]), match[2]!);
    }
  }
  return { records, exits };
}

/** Each task's state from Slurm's records (else what it recorded, else lost), and the run's state summarising them. */
export function arrayStateOf(
  indices: readonly number[],
  records: readonly SlurmArrayRecord[],
  exits: ReadonlyMap<number, string>,
  stateOf: (jobState: string, exitCode: string, reason: string, exitFile: string | null) => DetachedRunState,
): DetachedRunState {
  const byIndex = new Map<number, SlurmArrayRecord>();
  for (const record of records) for (const index of expandTaskIds(record.taskIds)) byIndex.set(index, record);
  const tasks = [...indices].sort((a, b) => a - b).map((index): DetachedTask => {
    const record = byIndex.get(index);
    const exitFile = exits.get(index) ?? null;
    const state: DetachedRunState = record
      ? stateOf(record.jobState, record.exitCode, record.reason, exitFile)
      : exitFile
        ? { state: 'ended', exit: parseExit(exitFile) }
        : { state: 'lost' };
    return taskOf(index, state);
  });
  const going = tasks.filter((task) => task.state === 'waiting' || task.state === 'running');
  if (going.length > 0) return { state: 'running', detail: describeTasks(tasks), tasks };
  if (tasks.every((task) => task.state === 'lost')) return { state: 'lost' };
  const failed = tasks.filter((task) => task.state !== 'completed');
  if (failed.length === 0) return { state: 'ended', exit: { exitCode: 0, signal: null, tasks } };
  const first = failed.find((task) => task.exitCode !== null && task.exitCode !== 0);
  return { state: 'ended', exit: { exitCode: first?.exitCode ?? 1, signal: null, detail: describeTasks(tasks), tasks } };
}

function taskOf(index: number, state: DetachedRunState): DetachedTask {
  if (state.state === 'running') {
    const waiting = state.detail?.startsWith('waiting') ?? false;
    return { index, state: waiting ? 'waiting' : 'running', exitCode: null, detail: state.detail ?? null };
  }
  if (state.state === 'lost') return { index, state: 'lost', exitCode: null, detail: null };
  const { exitCode, detail } = state.exit;
  const cancelled = detail?.startsWith('cancelled') ?? false;
  return { index, state: cancelled ? 'cancelled' : exitCode === 0 && !detail ? 'completed' : 'failed', exitCode, detail: detail ?? null };
}
