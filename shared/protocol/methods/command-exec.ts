import { z } from 'zod';
import { defineMethod, defineNotification } from '../define.js';

/**
 * `command/exec`: a standalone command outside any thread or turn — the
 * person's own terminal (`tty: true`) or a one-off buffered command. Codex
 * 0.169's shapes. Output is connection-scoped: it goes only to the connection
 * that started the command, and the command dies with that connection.
 */

const ProcessId = z.string().min(1).max(200);

export const CommandExecTerminalSize = z.object({
  cols: z.number().int().min(1).max(2000),
  rows: z.number().int().min(1).max(2000),
});
export type CommandExecTerminalSize = z.infer<typeof CommandExecTerminalSize>;

export const CommandExecParams = z.object({
  /** argv; empty arrays are rejected. */
  command: z.array(z.string()).min(1, 'command must not be empty'),
  /** Client-chosen, connection-scoped id; required for tty, streaming and the follow-up calls. */
  processId: ProcessId.nullable().optional(),
  /** Absolute working folder; defaults to the runtime's default folder. */
  cwd: z.string().min(1).nullable().optional(),
  /** Overrides on the login-shell environment; null unsets a variable. */
  env: z.record(z.string(), z.string().nullable()).nullable().optional(),
  /** A pseudo-terminal; implies streamStdin and streamStdoutStderr. */
  tty: z.boolean().nullable().optional(),
  streamStdin: z.boolean().nullable().optional(),
  streamStdoutStderr: z.boolean().nullable().optional(),
  /** Initial terminal size; only with tty. */
  size: CommandExecTerminalSize.nullable().optional(),
  timeoutMs: z.number().int().min(1).nullable().optional(),
  disableTimeout: z.boolean().nullable().optional(),
  /** Per-stream capture cap in bytes. */
  outputBytesCap: z.number().int().min(0).nullable().optional(),
  disableOutputCap: z.boolean().nullable().optional(),
  /** Codex accepts these; Wheelhouse runs `command/exec` unsandboxed (the person's own commands) and refuses them. */
  sandboxPolicy: z.unknown().optional(),
  permissionProfile: z.string().nullable().optional(),
  /**
   * Wheelhouse extension: the client acknowledges the output it has consumed
   * with `command/exec/ack`; while it lags by more than ~352 KB the command
   * is paused instead of its output piling up. Without it, output counts as
   * consumed once handed to the carrier.
   */
  outputAck: z.boolean().nullable().optional(),
  /**
   * Wheelhouse extension: run the person's interactive login shell (`$SHELL -l`
   * as the login environment names it) instead of `command` — a client cannot
   * know which shell that is. Requires tty.
   */
  loginShell: z.boolean().nullable().optional(),
  /**
   * Wheelhouse extension (Codex's `command/exec` has no environment field):
   * the thread the command belongs to. When that thread works on another
   * machine (its `environments`), the command runs there, in `cwd` there or
   * else the thread's folder there; otherwise on this computer as without it.
   */
  threadId: z.string().nullable().optional(),
});
export type CommandExecParams = z.infer<typeof CommandExecParams>;

export const CommandExecResult = z.object({
  exitCode: z.number().int(),
  /** Buffered stdout; empty when it was streamed. */
  stdout: z.string(),
  stderr: z.string(),
});
export type CommandExecResult = z.infer<typeof CommandExecResult>;

export const CommandExecWriteParams = z.object({
  processId: ProcessId,
  deltaBase64: z.base64().nullable().optional(),
  closeStdin: z.boolean().nullable().optional(),
});

export const CommandExecResizeParams = z.object({ processId: ProcessId, size: CommandExecTerminalSize });
export const CommandExecTerminateParams = z.object({ processId: ProcessId });
export const CommandExecAckParams = z.object({
  processId: ProcessId,
  /** Bytes of decoded output consumed since the last ack. */
  bytes: z.number().int().min(0),
});

export const CommandExecOutputStream = z.enum(['stdout', 'stderr']);

export const CommandExecOutputDelta = z.object({
  processId: z.string(),
  /** A pseudo-terminal's output is reported as stdout. */
  stream: CommandExecOutputStream,
  deltaBase64: z.string(),
  /** True on the last chunk of a stream when the output cap cut what followed. */
  capReached: z.boolean(),
});
export type CommandExecOutputDelta = z.infer<typeof CommandExecOutputDelta>;

export const commandExecMethods = {
  'command/exec': defineMethod(
    CommandExecParams,
    CommandExecResult,
    'Run a command outside any thread (tty for a terminal); answers when it exits.',
  ),
  'command/exec/write': defineMethod(CommandExecWriteParams, z.object({}), 'Write stdin bytes to a running command/exec, or close its stdin.'),
  'command/exec/resize': defineMethod(CommandExecResizeParams, z.object({}), 'Resize the terminal of a running tty command/exec.'),
  'command/exec/terminate': defineMethod(
    CommandExecTerminateParams,
    z.object({}),
    'Terminate a running command/exec and its whole process tree.',
  ),
  'command/exec/ack': defineMethod(
    CommandExecAckParams,
    z.object({}),
    'Wheelhouse extension: acknowledge consumed output of a command/exec started with outputAck.',
  ),
  'command/exec/foreground': defineMethod(
    CommandExecTerminateParams,
    z.object({ program: z.string().nullable() }),
    'Wheelhouse extension: the program running in front in a tty command/exec (what the person started at its shell), or null at the prompt.',
  ),
} as const;

export const commandExecNotifications = {
  'command/exec/outputDelta': defineNotification(
    CommandExecOutputDelta,
    'Output of a streaming command/exec, base64, to the connection that started it only.',
  ),
} as const;
