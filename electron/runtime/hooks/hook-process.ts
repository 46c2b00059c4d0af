import type { ProcessSupervisor } from '../../exec/index.js';

/** Output a hook may print before the rest is dropped (its answer is a small JSON object). */
const HOOK_OUTPUT_CAP_BYTES = 1024 * 1024;
/** How much of stderr is quoted back in a failure report. */
const STDERR_QUOTE_CHARS = 500;

export interface HookProcessSpec {
  readonly command: string | readonly string[];
  readonly cwd: string;
  readonly timeoutMs: number;
  readonly label: string;
  /** The event, written to stdin as one JSON document. */
  readonly input: unknown;
  /** Stops the hook (its whole tree) when what it belongs to is stopped, e.g. an interrupted turn. */
  readonly signal?: AbortSignal;
}

/** What a hook process did; `answer` is its stdout parsed as JSON (null when it printed nothing). */
export type HookProcessResult =
  | { readonly kind: 'answered'; readonly answer: Record<string, unknown> | null; readonly stderr: string }
  /** Exit code 2: the hook refuses, with stderr as its reason (as in Codex and Claude Code). */
  | { readonly kind: 'refused'; readonly reason: string }
  | { readonly kind: 'failed'; readonly error: string }
  /** Stopped through `signal`: nobody waits for its answer any more. */
  | { readonly kind: 'stopped' };

/**
 * Runs one hook command through the process supervisor (plain pipes): the
 * event on stdin, the answer on stdout. Every way a hook can go wrong (it
 * cannot start, crashes, exits non-zero, overruns its timeout, prints
 * something that is not a JSON object) comes back as `failed` with a reason,
 * never as a throw.
 */
export async function runHookProcess(supervisor: ProcessSupervisor, spec: HookProcessSpec): Promise<HookProcessResult> {
  if (spec.signal?.aborted) return { kind: 'stopped' };
  let process;
  try {
    process = await supervisor.spawn({
      command: spec.command,
      cwd: spec.cwd,
      tty: false,
      timeoutMs: spec.timeoutMs,
      outputCapBytes: HOOK_OUTPUT_CAP_BYTES,
      logCapBytes: HOOK_OUTPUT_CAP_BYTES,
      label: spec.label,
    });
  } catch (error) {
    return { kind: 'failed', error: `could not start: ${(error as Error).message}` };
  }
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  const subscription = process.subscribe((event) => {
    if (event.type === 'output') (event.stream === 'stderr' ? stderr : stdout).push(event.data);
  });
  try {
    process.write(`${JSON.stringify(spec.input)}\n`);
    process.endInput();
  } catch {
    // The hook exited before reading its input; its exit status tells what happened.
  }
  const stop = () => void process.terminate().catch(() => {});
  spec.signal?.addEventListener('abort', stop, { once: true });
  const exit = await process.exited;
  spec.signal?.removeEventListener('abort', stop);
  subscription.dispose();
  if (spec.signal?.aborted && exit.reason === 'terminated') return { kind: 'stopped' };
  const errorText = quote(Buffer.concat(stderr).toString('utf8'));
  if (exit.reason === 'timed-out') return { kind: 'failed', error: `timed out after ${spec.timeoutMs / 1000} s and was stopped` };
  if (exit.reason !== 'exited') return { kind: 'failed', error: `stopped (${exit.reason})` };
  if (exit.exitCode === 2) return { kind: 'refused', reason: errorText || 'refused (exit code 2)' };
  if (exit.exitCode !== 0) {
    const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.exitCode}`;
    return { kind: 'failed', error: errorText ? `${how}: ${errorText}` : how };
  }
  const text = Buffer.concat(stdout).toString('utf8').trim();
  if (text === '') return { kind: 'answered', answer: null, stderr: errorText };
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    return { kind: 'failed', error: `printed something that is not JSON: ${quote(text)}` };
  }
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) {
    return { kind: 'failed', error: `printed JSON that is not an object: ${quote(text)}` };
  }
  return { kind: 'answered', answer: answer as Record<string, unknown>, stderr: errorText };
}

function quote(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > STDERR_QUOTE_CHARS ? `${trimmed.slice(0, STDERR_QUOTE_CHARS)}…` : trimmed;
}
