import { lookupKnownModel, reportedContextWindow } from '../model/known-models.js';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import type { ConfigService } from '../config/config-service.js';
import { createModelBinder } from '../config/model-binder.js';
import { pickDefaultModel, type ListModels } from '../config/model-catalog.js';
import { ProviderResolver } from '../config/providers.js';
import { LocalFiles } from '../files/local-files.js';
import { EnvironmentRouter, ExecSessions, type LoginEnvironment, type ProcessSupervisor } from '../exec/index.js';
import { openRemoteEnvironment } from '../exec/remote/open-environment.js';
import type { WorkspaceOf } from '../runtime/tools/turn-workspace.js';
import { ElicitationBroker } from '../mcp/elicitation-broker.js';
import { mcpServerConfigs } from '../config/mcp-config.js';
import { McpManager } from '../mcp/mcp-manager.js';
import { McpToolApprovals } from '../mcp/mcp-tool-approval.js';
// Loads the model clients and the OpenAI SDK on first use, not at start-up.
import { createModelClient } from '../model/lazy-model-client.js';
import type { ModelBinder } from '../model/types.js';
import { ApprovalBroker } from '../runtime/approvals/approval-broker.js';
import { CommandExecService } from '../runtime/terminal/command-exec-service.js';
import { AgentCommandRunner } from '../runtime/agent-commands/agent-command-runner.js';
import { EnvironmentRegistry } from '../runtime/environments/environment-registry.js';
import { EventLog } from '../runtime/event-log.js';
import { GoalManager } from '../runtime/goal-manager.js';
import type { RuntimeHandlerDeps } from '../runtime/handlers/runtime-handlers.js';
import type { HomeLock } from '../runtime/home-lock.js';
import { HookDispatcher } from '../runtime/hooks/hook-dispatcher.js';
import { systemClock, type JobClock } from '../runtime/jobs/job-clock.js';
import { JobApprovals } from '../runtime/jobs/job-approvals.js';
import { JobEngine } from '../runtime/jobs/job-engine.js';
import { AgentJobTools } from '../runtime/jobs/job-tools.js';
import { agentToolTable } from '../runtime/turns/agent-tools.js';
import { PatchRunner } from '../runtime/patch/patch-runner.js';
import { PolicyService } from '../runtime/policy/rules-service.js';
import { Scheduler } from '../runtime/schedules/scheduler.js';
import { ProjectService } from '../runtime/projects/project-service.js';
import { TurnChanges } from '../runtime/projects/turn-changes.js';
import { homePaths } from '../runtime/home.js';
import { Checkpoints } from '../git/checkpoints.js';
import { ReviewService } from '../runtime/review/review-service.js';
import { GitRunner } from '../git/git-runner.js';
import { TurnQueue } from '../runtime/queue/turn-queue.js';
import { ThreadHistory } from '../runtime/thread-history.js';
import { ThreadPages } from '../runtime/thread-pages.js';
import { ThreadManager, type ThreadDefaults } from '../runtime/thread-manager.js';
import { ThreadSandboxSettings } from '../runtime/thread-sandbox.js';
import { ClientTools } from '../runtime/tools/client-tools.js';
import { OutgoingSender } from '../runtime/outgoing/outgoing-sender.js';
import { TurnEngine } from '../runtime/turns/turn-engine.js';
import { WHEELHOUSE_VERSION } from '../runtime/version.js';
import type { SecretStore } from '../secrets/secret-store.js';
import type { StateStore } from '../store/state-store.js';
import { superviseProcesses } from './process-supervisor.js';
import { StorageRetention } from '../runtime/retention/storage-retention.js';

/**
 * The outer parts a host opens and hands in (create-runtime.ts), so the core
 * never opens files, locks or the OS keychain by itself. The runtime owns
 * them from then on: `close()` closes the stores and releases the lock.
 */
export interface RuntimeParts {
  /** The Wheelhouse home folder (state database, config). */
  readonly home: string;
  /** Held for the runtime's life: one runtime per home. */
  readonly lock: HomeLock;
  /** config.toml in the home. */
  readonly config: ConfigService;
  /** Where provider API keys are kept. */
  readonly secrets: SecretStore;
  /** state.sqlite in the home. */
  readonly durable: StateStore;
  /** Ephemeral threads' store. */
  readonly memory: StateStore;
}

export interface RuntimeOptions {
  /** Check results against their schemas; default on in tests and development builds. */
  readonly validateResults?: boolean;
  readonly defaults?: Partial<ThreadDefaults>;
  readonly now?: () => number;
  readonly newId?: () => string;
  /** Chooses the model client of a turn; the default resolves providers from config.toml. */
  readonly bindModel?: ModelBinder;
  /** Where unexpected handler failures are reported (never the client's concern). */
  readonly logError?: (message: string, error: unknown) => void;
  /** Asks a provider for its models (model/list); default: its model client's GET /models. */
  readonly listModels?: ListModels;
  /** Command jobs running at once (default: CPU cores). */
  readonly jobConcurrency?: number;
  /** Clock and timers of job retries and schedules (tests drive it). */
  readonly jobClock?: JobClock;
  /** Timers of the runtime's own upkeep (retention, hourly); apart from jobClock so a test counting a job's timers sees only those. */
  readonly upkeepClock?: JobClock;
  /** SIGTERM → SIGKILL grace for cancelled jobs and app quit. */
  readonly killGraceMs?: number;
  /** How long a client-side tool call (`item/tool/call`) may wait for the client's answer. */
  readonly clientToolTimeoutMs?: number;
  /** The environment child processes start from; default: the user's login-shell environment (tests hand in their own). */
  readonly loginEnvironment?: () => Promise<LoginEnvironment>;
  /** How long an MCP server's elicitation waits for the person before the server gets `cancel` (default 10 min). */
  readonly elicitationTimeoutMs?: number;
  /** Start the configured MCP servers once the runtime starts (default true). */
  readonly startMcpServers?: boolean;
  /**
   * What sends to clients (notifications, server requests): handed in by a
   * host whose carriers attach before the runtime is open; default: one of its own.
   */
  readonly outgoing?: OutgoingSender;
}

/** Every service of one runtime, built once by `composeRuntime` and handed to the handlers and the lifecycle (runtime.ts). */
export interface RuntimeServices extends RuntimeHandlerDeps {
  readonly lock: HomeLock;
  readonly durable: StateStore;
  readonly memory: StateStore;
  /** config.toml in the home. */
  readonly config: ConfigService;
  readonly secrets: SecretStore;
  readonly providers: ProviderResolver;
  /** The one owner of child processes. */
  readonly supervisor: ProcessSupervisor;
  /** MCP servers' questions to the person. */
  readonly elicitations: ElicitationBroker;
  /** Every message to clients: the log's notifications, one connection's output, server requests and who may answer them. */
  readonly outgoing: OutgoingSender;
}

/**
 * The composition root: builds every service of the runtime from the parts
 * the host opened, and wires each to the others by what it needs. Nothing
 * here starts a process, a timer or a server: `Runtime.start()` does that.
 * Services that refer to one built later (the turn engine's end, the job
 * engine's tools) reach it through `later`, filled before this returns; none
 * of them calls it during construction.
 */
export function composeRuntime(parts: RuntimeParts, options: RuntimeOptions = {}): RuntimeServices {
  const { home, config } = parts;
  const now = options.now ?? Date.now;
  const newId = options.newId ?? randomUUID;
  const logError = options.logError;
  const later: { turns?: TurnEngine; queue?: TurnQueue; jobs?: JobEngine } = {};
  const built = <T>(service: T | undefined, name: string): T => {
    if (!service) throw new Error(`${name} was used before the runtime was composed`);
    return service;
  };

  const providers = new ProviderResolver(() => config.providers(), parts.secrets);
  const events = new EventLog(parts.durable, parts.memory, { now, ...(logError ? { onError: logError } : {}) });
  const outgoing = options.outgoing ?? new OutgoingSender(now);
  const cwd = options.defaults?.cwd ?? os.homedir();
  // Read on every thread/start, so a Settings change applies to the next thread.
  const threadDefaults = (): ThreadDefaults => ({
    modelProvider: options.defaults?.modelProvider ?? config.modelProvider(),
    model: options.defaults?.model ?? config.model(),
    cwd,
  });
  const threads = new ThreadManager({
    durable: parts.durable,
    memory: parts.memory,
    events,
    version: WHEELHOUSE_VERSION,
    defaults: threadDefaults,
    defaultModelOf: (modelProvider) => {
      const provider = config.provider(modelProvider);
      const configured = { modelProvider: config.modelProvider(), model: config.model() };
      return provider ? pickDefaultModel(provider, configured, []) : null;
    },
    newId,
    now,
    providerIds: () => config.providers().map((provider) => provider.id),
    liveItemsOf: (threadId) => built(later.turns, 'the turn engine').liveItems(threadId),
  });
  const supervisor = superviseProcesses(home, config, {
    ...(options.killGraceMs !== undefined ? { killGraceMs: options.killGraceMs } : {}),
    ...(options.loginEnvironment ? { loginEnvironment: options.loginEnvironment } : {}),
  });
  const git = new GitRunner(supervisor);
  const checkpoints = new Checkpoints(git, homePaths(home).checkpoints);
  const changes = new TurnChanges({
    checkpoints,
    events,
    threadOf: (threadId) => {
      const { record, store } = threads.require(threadId);
      return { cwd: record.cwd, store };
    },
    activeTurnOf: (threadId) => threads.activeTurn(threadId),
    now,
    ...(logError ? { logError } : {}),
  });
  const projects = new ProjectService({
    git,
    changes,
    threads,
    config,
    worktreesDir: homePaths(home).worktrees,
    defaultCwd: () => threadDefaults().cwd,
    // configChanged is built below; called only by requests, after composition.
    configChanged: (keyPath) => configChanged({ reason: 'write', keyPaths: [keyPath], providerId: null }),
    newId,
    ...(logError ? { logError } : {}),
  });
  const sandboxSettings = new ThreadSandboxSettings({ threads, events, sandboxStatus: () => supervisor.sandboxStatus(), now, projectOf: (folder) => projects.projectOf(folder) });
  const settingsOf = (threadId: string | null) => sandboxSettings.commandSettings(threadId);
  const approvals = new ApprovalBroker({
    events,
    outgoing,
    now,
    waitingChanged: (threadId, waiting, scope) => threads.approvalWaiting(threadId, waiting, scope),
  });
  const commandExec = new CommandExecService({
    supervisor,
    clients: outgoing,
    defaultCwd: cwd,
    // A terminal of a thread on an SSH machine opens there (`environments` is built below; asked only per command).
    machineOf: async (threadId) => {
      const machine = (await settingsOf(threadId)).machine ?? null;
      return machine ? { processes: environments.processes(machine.environmentId), cwd: machine.cwd } : null;
    },
  });
  // The shell parser is large: loaded with the first command or rules request, not at start-up.
  const policy = new PolicyService({
    home,
    onRulesChanged: (problems) => events.publish('execPolicy/rules/changed', { problems }, { ephemeral: true }),
  });
  const hooks = new HookDispatcher({ supervisor, config: () => config.current(), events, newId, now, ...(logError ? { onInternalError: logError } : {}) });
  const elicitations = new ElicitationBroker({
    outgoing,
    timeoutMs: options.elicitationTimeoutMs ?? 10 * 60 * 1000,
    resolved: (threadId, requestId) => events.publish('serverRequest/resolved', { threadId, requestId }, { threadId, ephemeral: true }),
    ...(logError ? { logWarning: (message: string) => logError(message, null) } : {}),
  });
  const mcp = new McpManager({
    elicit: (params, signal) => elicitations.ask(params, signal),
    supervisor,
    clientInfo: { name: 'wheelhouse', version: WHEELHOUSE_VERSION },
    readConfigs: () => mcpServerConfigs(config.current().config.mcp_servers),
    onStatus: (update) => events.publish('mcpServer/startupStatus/updated', update, { ephemeral: true }),
    onStartupCompleted: (summary) => events.publish('mcpServer/startupStatus/completed', summary, { ephemeral: true }),
  });
  // Tells clients what changed in config.toml; MCP servers follow their tables.
  const configChanged: RuntimeHandlerDeps['settings']['notify'] = (change) => {
    events.publish('config/changed', change);
    if (change.keyPaths.some((keyPath) => keyPath === 'mcp_servers' || keyPath.startsWith('mcp_servers.'))) void mcp.reload();
  };
  const mcpApprovals = new McpToolApprovals({
    lookup: (server, tool) => mcp.lookupTool(server, tool),
    settingsOf,
    ask: (target, params, itemId, signal) => approvals.requestMcpToolCall(target, params, itemId, signal),
    // "Always allow this tool": a change the runtime makes itself, announced as a client's config/value/write would be.
    trustForever: (server, tool) => {
      const keyPaths = config.applyEdits([{ keyPath: `mcp_servers.${server}.tools`, value: { [tool]: { approval_mode: 'approve' } }, mergeStrategy: 'upsert' }]);
      configChanged({ reason: 'write', keyPaths, providerId: null });
    },
    ...(logError ? { logError } : {}),
  });
  const goals = new GoalManager({ threads, events, newId, now });
  const clientTools = new ClientTools({
    storeOf: (threadId) => threads.require(threadId).store,
    isEphemeral: (threadId) => threads.require(threadId).record.ephemeral,
    outgoing,
    events,
    // Client tools may not shadow the table's own tools.
    reservedNames: () => tools.fixedNames(),
    timeoutMs: options.clientToolTimeoutMs ?? 120_000,
    now,
  });
  // Settings → Machines: the root hands the core how to open a machine (electron/exec/remote); the engine's one
  // DetachedEnvironment routes each run to this machine or the one its job names, and a thread's commands
  // run on the SSH machine it selected.
  const machineStates = new Map<string, string>();
  const environments = new EnvironmentRegistry({
    home,
    secrets: parts.secrets,
    open: (config, machineParts) => openRemoteEnvironment(config, machineParts, supervisor),
    statusChanged: (change) => {
      events.publish('environment/status/changed', change);
      // Codex's per-thread word for the same change, to every loaded thread that runs there, once per change.
      if (change.status !== 'ready' && change.status !== 'disconnected') return;
      if (machineStates.get(change.environmentId) === change.status) return;
      machineStates.set(change.environmentId, change.status);
      const method = change.status === 'ready' ? 'thread/environment/connected' : 'thread/environment/disconnected';
      for (const { threadId, ephemeral } of threads.loadedOn(change.environmentId)) {
        events.publish(method, { environmentId: change.environmentId, threadId }, { threadId, ephemeral });
      }
    },
    jobsUsing: (environmentId) => built(later.jobs, 'the job engine').usingEnvironment(environmentId),
    keepConnected: (environmentId) => threads.loadedOn(environmentId).length > 0,
    threadsUsing: (environmentId) =>
      parts.durable.threads.usingEnvironment(environmentId).map((thread) => ({ threadId: thread.id, name: thread.name ?? (thread.preview.slice(0, 60) || thread.id) })),
  });
  const commands = new AgentCommandRunner({
    supervisor,
    sessions: new ExecSessions(supervisor),
    policy: () => policy.engine(),
    approvals,
    events,
    settingsOf,
    remoteProcesses: (environmentId) => environments.processes(environmentId),
    newId,
    now,
    // Its output goes to every client: the slowest one paces the command.
    ackWhenClientsCatchUp: (ack) => commandExec.ackWhenClientsCatchUp(null, ack),
  });
  const jobTools = new AgentJobTools({ jobs: () => built(later.jobs, 'the job engine'), commands, settingsOf });
  // A turn's files: this computer's folder, or the one on the SSH machine its thread works on (over SFTP).
  const localFiles = new LocalFiles();
  const workspaceOf: WorkspaceOf = async (turn) => {
    const machine = (await settingsOf(turn.threadId)).machine ?? null;
    return machine
      ? { files: environments.files(machine.environmentId), cwd: machine.cwd, environmentId: machine.environmentId }
      : { files: localFiles, cwd: turn.cwd, environmentId: null };
  };
  // Every tool the model can call, in the order it sees them: one table, one dispatch path.
  const tools = agentToolTable({
    commands,
    patches: new PatchRunner({ approvals, events, settingsOf, workspaceOf, newId, now }),
    workspaceOf,
    jobs: jobTools,
    goals,
    mcp: {
      events,
      newId,
      now,
      mcp: {
        toolSpecs: () => mcp.toolSpecs(),
        resolveTool: (modelName) => mcp.resolveTool(modelName),
        callTool: (server, tool, args, callOptions) => mcp.callTool(server, tool, args, callOptions),
        readOnlyHint: (server, tool) => mcp.lookupTool(server, tool)?.facts?.hints?.readOnlyHint ?? null,
        review: (call) => mcpApprovals.review(call),
      },
    },
    clientTools,
    changes,
  });
  const turns = new TurnEngine({
    threads,
    events,
    goals,
    tools,
    bindModel: options.bindModel ?? createModelBinder({ configService: config, providers, createClient: createModelClient }),
    newId,
    now,
    knownSecrets: () => providers.knownApiKeys(),
    ...(logError ? { onInternalError: logError } : {}),
    onTurnEnded: (threadId, turnId) => {
      changes.turnEnded(turnId);
      // A command the turn left running becomes a job (it shows in the dashboard and can be paused or cancelled).
      void jobTools.adoptLeftovers(threadId, turnId).catch((error: unknown) => logError?.(`adopting the commands of turn ${turnId}`, error));
      built(later.queue, 'the turn queue').drain(threadId);
    },
    hooks,
  });
  later.turns = turns;
  const queue = new TurnQueue({ threads, store: parts.durable, events, turns, newId, now, ...(logError ? { onInternalError: logError } : {}) });
  later.queue = queue;
  const jobs = new JobEngine({
    store: parts.durable,
    events,
    supervisor,
    environment: new EnvironmentRouter(supervisor.detached, (environmentId) => environments.detached(environmentId)),
    checkEnvironment: (environmentId) => environments.check(environmentId),
    newId,
    agents: { threads, turns, goals, approvals },
    ...(options.jobConcurrency !== undefined ? { concurrency: options.jobConcurrency } : {}),
    ...(options.jobClock ? { clock: options.jobClock } : {}),
    ...(options.killGraceMs !== undefined ? { killGraceMs: options.killGraceMs } : {}),
    ...(logError ? { onError: logError } : {}),
    approvals: new JobApprovals({ policy: () => policy.engine(), approvals, settingsOf, now }),
  });
  later.jobs = jobs;
  // Runs are jobs: the scheduler starts them through the job engine, on the same clock as retries.
  const schedules = new Scheduler({
    store: parts.durable,
    events,
    jobs,
    clock: options.jobClock ?? systemClock,
    newId,
    ...(logError ? { onError: logError } : {}),
  });
  const pages = new ThreadPages(threads);
  const history = new ThreadHistory({ threads, turns, events, goals, pages, contextWindowOf: (model) => reportedContextWindow(lookupKnownModel(model)?.contextWindow ?? null), newId, now });
  const paths = homePaths(home);
  const retention = new StorageRetention({
    store: parts.durable,
    events,
    stateDb: paths.stateDb,
    processLogDir: path.join(paths.logs, 'exec'),
    budgets: () => config.retentionBudgets(),
    now,
    runningLogs: () => supervisor.list().map((child) => child.logPath),
    removeJobRun: (jobId, run, logPath, detached) => jobs.logs.removeRun(logPath, detached),
    ...(logError ? { onError: logError } : {}),
  });

  const modelProbe = { configService: config, providers, createClient: createModelClient };
  return {
    home,
    lock: parts.lock,
    durable: parts.durable,
    memory: parts.memory,
    config,
    secrets: parts.secrets,
    providers,
    supervisor,
    elicitations,
    outgoing,
    events,
    threads,
    history,
    pages,
    hooks,
    clientTools,
    queue,
    sandboxSettings,
    threadDefaults,
    turns,
    review: new ReviewService({ git, checkpoints, threads, turns }),
    goals,
    approvals,
    mcp,
    commandExec,
    policy,
    jobs,
    environments,
    changes,
    projects,
    retention,
    schedules,
    settings: {
      configService: config,
      secretStore: parts.secrets,
      providers,
      listModels: options.listModels ?? ((provider, signal) => createModelClient(provider).listModels(signal)),
      notify: configChanged,
    },
    modelProbe,
  };
}
