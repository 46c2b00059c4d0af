import { commandTools } from '../agent-commands/command-tool-specs.js';
import type { AgentCommandRunner } from '../agent-commands/agent-command-runner.js';
import type { GoalManager } from '../goal-manager.js';
import { jobTools, type AgentJobTools } from '../jobs/job-tools.js';
import { applyPatchTool } from '../patch/patch-tool-spec.js';
import type { PatchRunner } from '../patch/patch-runner.js';
import { builtinTools } from '../tools/builtin-tools.js';
import type { ClientTools } from '../tools/client-tools.js';
import type { WorkspaceOf } from '../tools/turn-workspace.js';
import { ToolTable, type ToolEntry } from '../tools/tool-table.js';
import type { ActiveTurn } from '../active-turn.js';
import { goalTools } from './goal-tools.js';
import { mcpTools, type McpCallDeps } from './mcp-tool-call.js';

export interface AgentToolSources {
  readonly commands: AgentCommandRunner;
  readonly patches: PatchRunner;
  readonly jobs: AgentJobTools;
  readonly goals: GoalManager;
  readonly mcp: McpCallDeps;
  readonly clientTools: ClientTools;
  /** Where a turn's files are (this computer or its thread's SSH machine): the read-only file tools act there. */
  readonly workspaceOf: WorkspaceOf;
  /** Checkpoints around the calls that may change files (projects/turn-changes.ts); absent, none are kept. */
  readonly changes?: FileChangeCheckpoints;
}

/** Keeps a turn's files before its first change and after each (undo, `turn/diff/updated`). */
export interface FileChangeCheckpoints {
  beforeChange(turn: ActiveTurn): Promise<void>;
  afterChange(turn: ActiveTurn): Promise<void>;
}

/**
 * Every tool the agent may be offered, in the order the model sees them
 * (fixed, for provider prompt caches): the read-only built-ins, the MCP
 * servers' tools, exec_command and write_stdin, apply_patch, the job tools,
 * the goal tools (threads with a goal) and the thread's client tools.
 * Adding a tool is one row here: see docs/tools.md.
 */
export function agentToolTable(sources: AgentToolSources): ToolTable<ActiveTurn> {
  return new ToolTable<ActiveTurn>()
    .register(...builtinTools(sources.workspaceOf))
    .registerSource(mcpTools(sources.mcp))
    .register(...commandTools(sources.commands).map((entry) => checkpointed(entry, sources)))
    .register(checkpointed(applyPatchTool(sources.patches), sources))
    .register(...jobTools(sources.jobs))
    .register(...goalTools(sources.goals))
    .registerSource(sources.clientTools);
}

/**
 * A row whose calls may write files (a patch, a command, input to a running command): the
 * checkpoint comes before it runs, the turn's diff after it answered. Only calls that run
 * get one: a call refused by its schema or a hook changes nothing. Checkpoints are git trees
 * of this computer's folder: a turn on an SSH machine gets none (its patch cards say so).
 */
function checkpointed(entry: ToolEntry<ActiveTurn>, sources: Pick<AgentToolSources, 'changes' | 'workspaceOf'>): ToolEntry<ActiveTurn> {
  const { changes, workspaceOf } = sources;
  if (!changes) return entry;
  return {
    ...entry,
    run: async (args, invocation) => {
      if ((await workspaceOf(invocation.turn)).environmentId !== null) return entry.run(args, invocation);
      await changes.beforeChange(invocation.turn);
      try {
        return await entry.run(args, invocation);
      } finally {
        await changes.afterChange(invocation.turn);
      }
    },
  };
}
