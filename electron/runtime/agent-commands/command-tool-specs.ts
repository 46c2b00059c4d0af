import { z } from 'zod';
import { defineTool, type ToolEntry, type ToolInvocation } from '../tools/tool-table.js';
import type { ActiveTurn } from '../active-turn.js';
import type { AgentCommandRunner } from './agent-command-runner.js';

/** Codex's default yield: a command still running after 10 s answers with a session id. */
export const DEFAULT_YIELD_MS = 10_000;
const MAX_YIELD_MS = 300_000;

/**
 * Codex's `sandbox_permissions`: run in the thread's sandbox (the default), ask
 * the person to run outside it, or ask for exactly the added permissions.
 */
export const SandboxPermissions = z.enum(['use_default', 'require_escalated', 'with_additional_permissions']);
export type SandboxPermissions = z.infer<typeof SandboxPermissions>;

const PermissionPaths = z.array(z.string().min(1).max(4096)).max(32);

/** Codex's `additional_permissions`: folders to read or write beyond the sandbox's, and the network. */
export const AdditionalPermissions = z
  .strictObject({
    file_system: z.strictObject({ read: PermissionPaths.optional(), write: PermissionPaths.optional() }).optional(),
    network: z.strictObject({ enabled: z.boolean().optional() }).optional(),
  })
  .describe(
    'With sandbox_permissions "with_additional_permissions": folders to read or write beyond the sandbox\'s (absolute, or relative to the project folder), and whether the command needs the network.',
  );
export type AdditionalPermissions = z.infer<typeof AdditionalPermissions>;

export const ExecCommandArgs = z
  .object({
    cmd: z.string().min(1).max(64 * 1024).describe('The shell command to run.'),
    workdir: z.string().max(4096).optional().describe('Working folder, relative to the project folder (default: the project folder).'),
    env: z.record(z.string(), z.string()).optional().describe('Extra environment variables.'),
    timeout_ms: z.number().int().min(1).max(24 * 3600 * 1000).optional().describe('Stop the command (and everything it started) after this long.'),
    yield_time_ms: z.number().int().min(0).max(MAX_YIELD_MS).optional().describe('How long to wait for the command before answering (default 10000).'),
    justification: z.string().max(2000).optional().describe('Why the command is needed, shown to the person when it needs approval.'),
    sandbox_permissions: SandboxPermissions.optional().describe(
      'Where the command runs: in the thread\'s sandbox (use_default, the default); outside the sandbox (require_escalated: the person is asked first; give a justification); or in the sandbox with exactly the folders or network named in additional_permissions (the person is asked first). Ask only when the sandbox is what stops the command.',
    ),
    additional_permissions: AdditionalPermissions.optional(),
    prefix_rule: z
      .array(z.string().min(1).max(4096))
      .min(1)
      .max(64)
      .optional()
      .describe('When the command needs approval: the command prefix (argv words, e.g. ["npm", "test"]) to propose the person allow from now on.'),
  })
  .superRefine((args, ctx) => {
    const additions = args.additional_permissions;
    const asksForAdditions = args.sandbox_permissions === 'with_additional_permissions';
    const hasAdditions = Boolean(additions?.file_system?.read?.length || additions?.file_system?.write?.length || additions?.network?.enabled);
    if (asksForAdditions && !hasAdditions) {
      ctx.addIssue({ code: 'custom', path: ['additional_permissions'], message: 'with_additional_permissions needs additional_permissions naming folders to read or write, or network' });
    }
    if (additions && !asksForAdditions) {
      ctx.addIssue({ code: 'custom', path: ['sandbox_permissions'], message: 'additional_permissions is only used with sandbox_permissions "with_additional_permissions"' });
    }
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
