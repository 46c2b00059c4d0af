import { z } from 'zod';
import { defineTool, type ToolEntry, type ToolInvocation } from '../tools/tool-table.js';
import type { ActiveTurn } from '../active-turn.js';
import type { AgentCommandRunner } from './agent-command-runner.js';

/** Codex's default yield: a command still running after 10 s answers with a session id. */
export const DEFAULT_YIELD_MS = 10_000;
const MAX_YIELD_MS = 300_000;

export const ExecCommandArgs = z.object({
  cmd: z.string().min(1).max(64 * 1024).describe('The shell command to run.'),
  workdir: z.string().max(4096).optional().describe('Working folder, relative to the project folder (default: the project folder).'),
  env: z.record(z.string(), z.string()).optional().describe('Extra environment variables.'),
  timeout_ms: z.number().int().min(1).max(24 * 3600 * 1000).optional().describe('Stop the command (and everything it started) after this long.'),
  yield_time_ms: z.number().int().min(0).max(MAX_YIELD_MS).optional().describe('How long to wait for the command before answering (default 10000).'),
  justification: z.string().max(2000).optional().describe('Why the command is needed, shown to the person when it needs approval.'),
});
export type ExecCommandArgs = z.infer<typeof ExecCommandArgs>;

export const WriteStdinArgs = z.object({
  session_id: z.number().int().min(1),
  chars: z.string().max(64 * 1024).optional().describe('Text to type into the command (may be empty to only read).'),
  yield_time_ms: z.number().int().min(0).max(MAX_YIELD_MS).optional().describe('How long to wait for more output (default 10000).'),
  /** Wheelhouse: end the command (its whole process tree). */
  stop: z.boolean().optional().describe('End the command and everything it started.'),
});
export type WriteStdinArgs = z.infer<typeof WriteStdinArgs>;

export const EXEC_COMMAND = 'exec_command';
export const WRITE_STDIN = 'write_stdin';

/** exec_command (its calls are `commandExecution` items) and write_stdin, as rows of the tool table. */
export function commandTools(commands: AgentCommandRunner): ToolEntry<ActiveTurn>[] {
  return [
    defineTool({
      name: EXEC_COMMAND,
      description:
        'Run a shell command in the project folder (through the user\'s shell). Answers with its output and exit code, or, when it is still running after yield_time_ms (default 10000), with a session_id and the output so far: use write_stdin to read more, type into it, or stop it. Commands may need the person\'s approval.',
      args: ExecCommandArgs,
      run: (args, { turn, call, input, permission }: ToolInvocation<ActiveTurn>) => commands.execCommand(turn, call, input, { args, permission }),
      refuse: (refusal, { turn, call, input }) => commands.execCommand(turn, call, input, { refusal }),
    }),
    defineTool({
      name: WRITE_STDIN,
      description:
        'Read more output of a command that is still running (exec_command returned a session_id), optionally typing chars into it first (include "\\n" to press Enter), or stop it with stop: true.',
      args: WriteStdinArgs,
      run: (args) => commands.writeStdin(args),
    }),
  ];
}
