import { commandTools } from '../agent-commands/command-tool-specs.js';
import type { AgentCommandRunner } from '../agent-commands/agent-command-runner.js';
import type { GoalManager } from '../goal-manager.js';
import { jobTools, type AgentJobTools } from '../jobs/job-tools.js';
import { applyPatchTool } from '../patch/patch-tool-spec.js';
import type { PatchRunner } from '../patch/patch-runner.js';
import { builtinTools } from '../tools/builtin-tools.js';
import type { ClientTools } from '../tools/client-tools.js';
import { ToolTable } from '../tools/tool-table.js';
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
    .register(...builtinTools())
    .registerSource(mcpTools(sources.mcp))
    .register(...commandTools(sources.commands))
    .register(applyPatchTool(sources.patches))
    .register(...jobTools(sources.jobs))
    .register(...goalTools(sources.goals))
    .registerSource(sources.clientTools);
}
