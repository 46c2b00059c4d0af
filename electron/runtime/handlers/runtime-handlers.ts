import { desktopOnlyHandlers, type MethodHandlers, type modelProbeMethods } from '../../../shared/protocol/index.js';
import { createConfigHandlers, type ConfigHandlerDeps } from '../../config/config-handlers.js';
import { probeModel, type ModelProbeDeps } from '../../config/model-probe.js';
import type { McpManager } from '../../mcp/mcp-manager.js';
import type { ApprovalBroker } from '../approvals/approval-broker.js';
import type { CommandExecService } from '../terminal/command-exec-service.js';
import type { RequestContext } from '../context.js';
import type { EnvironmentRegistry } from '../environments/environment-registry.js';
import type { EventLog } from '../event-log.js';
import type { GoalManager } from '../goal-manager.js';
import { initializeHandler } from '../initialize-handler.js';
import type { JobEngine } from '../jobs/job-engine.js';
import type { PolicyService } from '../policy/rules-service.js';
import type { ProjectService } from '../projects/project-service.js';
import type { TurnChanges } from '../projects/turn-changes.js';
import type { Scheduler } from '../schedules/scheduler.js';
import type { TurnEngine } from '../turns/turn-engine.js';
import { approvalHandlers } from './approval-handlers.js';
import { commandExecHandlers } from './command-exec-handlers.js';
import type { HandlerTable } from './handler-table.js';
import { environmentHandlers } from './environment-handlers.js';
import { jobHandlers } from './job-handlers.js';
import { projectHandlers } from './project-handlers.js';
import { mcpHandlers } from './mcp-handlers.js';
import { scheduleHandlers } from './schedule-handlers.js';
import { execPolicyHandlers, hookHandlers, threadSandboxHandlers } from './policy-handlers.js';
import { threadHandlers, type ThreadHandlerDeps } from './thread-handlers.js';
import { goalHandlers, queueHandlers, turnHandlers } from './turn-handlers.js';
import { eventHandlers, storageHandlers, workspaceHandlers } from './workspace-handlers.js';
import type { StorageRetention } from '../retention/storage-retention.js';

/** The services the handlers call: built by the composition root (electron/host/compose-runtime.ts). */
export interface RuntimeHandlerDeps extends ThreadHandlerDeps {
  /** The Wheelhouse home, reported by `initialize`. */
  readonly home: string;
  readonly events: EventLog;
  readonly turns: TurnEngine;
  readonly goals: GoalManager;
  readonly approvals: ApprovalBroker;
  readonly mcp: McpManager;
  readonly commandExec: CommandExecService;
  readonly policy: PolicyService;
  readonly jobs: JobEngine;
  /** Settings → Machines: SSH hosts and Slurm clusters jobs run on. */
  readonly environments: EnvironmentRegistry;
  /** Checkpoints around each turn's file changes: diffs, undo. */
  readonly changes: TurnChanges;
  /** project/*, a thread's separate copy. */
  readonly projects: ProjectService;
  /** Keeps the home within its budgets; storage/usage reports it. */
  readonly retention: StorageRetention;
  /** Jobs on a clock; each run is a job of `jobs`. */
  readonly schedules: Scheduler;
  /** config/*, model/list: config.toml, provider keys, model lists. */
  readonly settings: ConfigHandlerDeps;
  /** model/test: one small request to a provider. */
  readonly modelProbe: ModelProbeDeps;
}

/** model/test: whether a provider answers, with which model, and how fast. */
export function modelHandlers(deps: ModelProbeDeps): HandlerTable<typeof modelProbeMethods> {
  return { 'model/test': (params) => probeModel(deps, params) };
}

/**
 * Every method's handler, one namespace module each. The compiler rejects a
 * method declared in shared/protocol without a handler here. The desktop
 * methods are refused: the desktop shell answers them itself (electron/host/start-runtime.ts).
 */
export function runtimeHandlers(deps: RuntimeHandlerDeps): MethodHandlers<RequestContext> {
  return {
    initialize: initializeHandler(deps.home),
    ...threadHandlers(deps),
    ...turnHandlers(deps.turns, deps.environments),
    ...queueHandlers(deps.queue),
    ...goalHandlers(deps.goals),
    ...eventHandlers(deps.events),
    ...createConfigHandlers(deps.settings),
    ...modelHandlers(deps.modelProbe),
    ...approvalHandlers(deps.approvals, deps.threads),
    ...mcpHandlers(deps.mcp, (threadId) => void deps.threads.require(threadId)),
    ...workspaceHandlers(),
    ...storageHandlers(deps.retention),
    ...commandExecHandlers(deps.commandExec),
    ...hookHandlers(deps.hooks, deps.threads, deps.threadDefaults),
    ...threadSandboxHandlers(deps.sandboxSettings),
    ...execPolicyHandlers(deps.policy, deps.sandboxSettings),
    ...environmentHandlers(deps.environments),
    ...jobHandlers(deps.jobs, deps.projects),
    ...projectHandlers(deps.projects, deps.changes),
    ...scheduleHandlers(deps.schedules),
    ...desktopOnlyHandlers(),
  };
}
