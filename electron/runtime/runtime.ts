import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { desktopOnlyHandlers, Dispatcher, type ConfigChangedNotification, type MethodHandlers } from '../../shared/protocol/index.js';
import type { StateStore } from '../store/state-store.js';
import { CommandExecService } from './command-exec/command-exec-service.js';
import { ExecSessions, ProcessSupervisor, type LoginEnvironment } from '../exec/index.js';
import { ApprovalBroker } from './approvals/approval-broker.js';
import { CommandRunner } from './commands/command-runner.js';
import { PatchRunner } from './patch/patch-runner.js';
import { endFileChangesOfEarlierRun } from './patch/patch-recovery.js';
import { endCommandsOfEarlierRun } from './commands/command-recovery.js';
import { HookDispatcher } from './hooks/hook-dispatcher.js';
import { resumeWithSessionHooks, startWithSessionHooks } from './hooks/session-start-hooks.js';
import { PolicyService } from './policy/policy-service.js';
import type { RequestContext } from './context.js';
import { EventLog } from './event-log.js';
import { GoalManager } from './goal-manager.js';
import { homePaths } from './home.js';
import type { HomeLock } from './home-lock.js';
import type { JobClock } from './jobs/job-clock.js';
import { JobEngine, type JobShutdownOptions } from './jobs/job-engine.js';
import { JobApprovals } from './jobs/job-approvals.js';
import { AgentJobTools, jobToolSpecs } from './jobs/job-tools.js';
import { TurnQueue } from './queue/turn-queue.js';
import { ThreadHistory } from './thread-history.js';
import { ThreadSandboxSettings } from './thread-sandbox.js';
import { ThreadManager, type ThreadDefaults } from './thread-manager.js';
import { builtinTools } from './tools/builtin-tools.js';
import { ClientTools } from './tools/client-tools.js';
import { ToolRegistry } from './tools/tool-registry.js';
import type { ModelBinder } from '../model/types.js';
import { recoverInterruptedTurns } from './turns/turn-recovery.js';
import { TurnEngine } from './turns/turn-engine.js';
import { WHEELHOUSE_VERSION } from './version.js';
import { initializeHandler, resultsValidatedByDefault } from './initialize-handler.js';
import { listDirectory } from './workspace-browser.js';
import { Checkpoints } from '../git/checkpoints.js';
import { GitRunner } from '../git/git-runner.js';
import { ProjectHandlers } from './projects/project-handlers.js';
import { TurnChanges } from './projects/turn-changes.js';
// Configuration, providers and secrets (electron/config, electron/secrets).
import { createConfigHandlers } from '../config/config-handlers.js';
import type { ConfigService } from '../config/config-service.js';
import { createModelBinder } from '../config/model-binder.js';
import { probeModel } from '../config/model-probe.js';
import { pickDefaultModel, type ListModels } from '../config/model-catalog.js';
import { ProviderResolver } from '../config/providers.js';
import { secretVariableNames } from '../config/secret-variables.js';
import type { SecretStore } from '../secrets/secret-store.js';
import { mcpServerConfigs } from '../mcp/mcp-config.js';
import { createMcpHandlers } from '../mcp/mcp-handlers.js';
import { McpManager } from '../mcp/mcp-manager.js';
import { McpToolApprovals } from '../mcp/mcp-tool-approval.js';
import { ElicitationBroker } from '../mcp/elicitation-broker.js';
// Loads the model clients and the OpenAI SDK on first use, not at start-up.
import { createModelClient } from '../model/lazy-model-client.js';

/**
 * The outer parts a host builds and hands in (electron/host/create-runtime.ts),
 * so the core never opens files, locks or the OS keychain by itself. The
 * runtime owns them from then on: `close()` closes the stores and releases the lock.
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
  /** Clock and timers of job retry schedules (tests). */
  readonly jobClock?: JobClock;
  /** SIGTERM → SIGKILL grace for cancelled jobs and app quit. */
  readonly killGraceMs?: number;
  /** How long a client-side tool call (`item/tool/call`) may wait for the client's answer. */
  readonly clientToolTimeoutMs?: number;
  /** The environment child processes start from; default: the user's login-shell environment (tests hand in their own). */
  readonly loginEnvironment?: () => Promise<LoginEnvironment>;
  /** How long an MCP server's elicitation waits for the person before the server gets `cancel` (default 10 min). */
  readonly elicitationTimeoutMs?: number;
  /** Start the configured MCP servers right after construction (default true). */
  readonly startMcpServers?: boolean;
}

/**
 * The Electron-free runtime core. Every carrier (IPC, stdio, WebSocket)
 * dispatches into one instance of it.
 */
export class Runtime {
  readonly home: string;
  readonly durable: StateStore;
  readonly memory: StateStore;
  readonly events: EventLog;
  readonly threads: ThreadManager;
  readonly goals: GoalManager;
  readonly turns: TurnEngine;
  /** Client-side tools of each thread; a carrier host installs how to reach the client. */
  readonly clientTools: ClientTools;
  /** `command/exec`: the person's terminals and standalone commands; a carrier host installs how to reach its connections. */
  readonly commandExec: CommandExecService;
  /** The one owner of child processes (hooks, jobs, the person's terminals; agent commands next). */
  readonly supervisor: ProcessSupervisor;
  /** Commands from config.toml run at points of a session (hooks/list, hook/started|completed). */
  readonly hooks: HookDispatcher;
  /** Queued turns (thread/queue/*). */
  readonly queue: TurnQueue;
  readonly history: ThreadHistory;
  readonly dispatcher: Dispatcher<RequestContext>;
  /** The method handlers behind `dispatcher`, for a host that validates requests itself (start-runtime.ts). */
  readonly methods: MethodHandlers<RequestContext>;
  /** config.toml in the home. */
  readonly config: ConfigService;
  /** Provider API keys. */
  readonly secrets: SecretStore;
  /** Providers with their keys, for model clients. */
  readonly providers: ProviderResolver;
  /** Long-running jobs (job/*). */
  readonly jobs: JobEngine;
  /** The configured MCP servers and their tools. */
  readonly mcp: McpManager;
  /** Approvals waiting for the person; a carrier host installs how to reach its clients. */
  readonly approvals: ApprovalBroker;
  /** MCP servers' questions to the person; a carrier host installs how to reach its clients. */
  readonly elicitations: ElicitationBroker;
  /** The exec policy: rules files (watched), built-in defaults, the rules editor's methods. */
  readonly policy: PolicyService;
  /** Each thread's sandbox mode and approval policy. */
  readonly sandboxSettings: ThreadSandboxSettings;
  /** Checkpoints around each turn's file changes: diffs, undo. */
  readonly changes: TurnChanges;
  /** project/*, thread/changes/*, thread/worktree/*, and thread/start's project part. */
  private readonly projects: ProjectHandlers;
  private readonly listModels: ListModels;
  private readonly lock: HomeLock;
  private readonly pruneTimer: ReturnType<typeof setInterval>;
  private closed = false;
  /** What thread/start uses when its params leave something out (read per call: Settings may change it). */
  private readonly threadDefaults: () => ThreadDefaults;
  /** An exit nobody planned (process.exit elsewhere) still takes every child process along. */
  private readonly killChildrenOnExit = () => this.supervisor.disposeNow();

  constructor(parts: RuntimeParts, options: RuntimeOptions = {}) {
    this.home = parts.home;
    this.lock = parts.lock;
    this.config = parts.config;
    this.secrets = parts.secrets;
    this.durable = parts.durable;
    this.memory = parts.memory;
    this.providers = new ProviderResolver(() => this.config.providers(), this.secrets);
    this.listModels = options.listModels ?? ((provider, signal) => createModelClient(provider).listModels(signal));
    const now = options.now ?? Date.now;
    this.events = new EventLog(this.durable, this.memory, {
      now,
      ...(options.logError ? { onError: options.logError } : {}),
    });
    const cwd = options.defaults?.cwd ?? os.homedir();
    // Read on every thread/start, so a Settings change applies to the next thread.
    const defaults = (): ThreadDefaults => ({
      modelProvider: options.defaults?.modelProvider ?? this.config.modelProvider(),
      model: options.defaults?.model ?? this.config.model(),
      cwd,
    });
    this.threadDefaults = defaults;
    const newId = options.newId ?? randomUUID;
    this.threads = new ThreadManager({
      durable: this.durable,
      memory: this.memory,
      events: this.events,
      version: WHEELHOUSE_VERSION,
      defaults,
      defaultModelOf: (modelProvider) => {
        const provider = this.config.provider(modelProvider);
        const configured = { modelProvider: this.config.modelProvider(), model: this.config.model() };
        return provider ? pickDefaultModel(provider, configured, []) : null;
      },
      newId,
      now,
      providerIds: () => this.config.providers().map((provider) => provider.id),
      liveItemsOf: (threadId) => this.turns.liveItems(threadId),
    });
    recoverInterruptedTurns(this.durable, this.events, now);
    endCommandsOfEarlierRun(this.durable);
    this.sandboxSettings = new ThreadSandboxSettings({
      threads: this.threads,
      events: this.events,
      sandboxStatus: () => this.supervisor.sandboxStatus(),
      now,
    });
    // Before the broker ends the old approvals: whether a patch still waited decides how it ends.
    endFileChangesOfEarlierRun(this.durable);
    this.approvals = new ApprovalBroker({ events: this.events, now });
    this.approvals.endLeftovers(this.durable);
    // The one supervisor of every child process: agent commands, hooks, jobs, MCP servers, the person's terminals.
    // Built here, never handed in, so no process can start without the secret and protected-path rules.
    const secretNames = new Set<string>();
    this.supervisor = new ProcessSupervisor({
      logDir: path.join(homePaths(this.home).logs, 'exec'),
      runsDir: homePaths(this.home).runs,
      ...(options.killGraceMs !== undefined ? { killGraceMs: options.killGraceMs } : {}),
      ...(options.loginEnvironment ? { loginEnvironment: options.loginEnvironment } : {}),
      // Names once seen stay secret for the run: a provider renamed or a file broken mid-run still has its key in the environment.
      secretVariables: () => {
        for (const name of secretVariableNames(this.config.current())) secretNames.add(name);
        return secretNames;
      },
      protectedPaths: [this.home],
    });
    process.on('exit', this.killChildrenOnExit);
    this.commandExec = new CommandExecService({ supervisor: this.supervisor, defaultCwd: cwd });
    const git = new GitRunner(this.supervisor);
    this.changes = new TurnChanges({
      checkpoints: new Checkpoints(git, homePaths(this.home).checkpoints),
      events: this.events,
      threadOf: (threadId) => {
        const { record, store } = this.threads.require(threadId);
        return { cwd: record.cwd, store };
      },
      activeTurnOf: (threadId) => this.threads.activeTurn(threadId),
      now,
      ...(options.logError ? { logError: options.logError } : {}),
    });
    this.projects = new ProjectHandlers({
      git,
      changes: this.changes,
      threads: this.threads,
      config: this.config,
      worktreesDir: homePaths(this.home).worktrees,
      defaultCwd: () => this.threadDefaults().cwd,
      configChanged: (keyPath) => this.configChanged({ reason: 'write', keyPaths: [keyPath], providerId: null }),
      newId,
    });
    // Warm the login-shell environment (a shell start, up to 10 s) without holding up initialize.
    void this.supervisor.loginEnvironment().catch((error: unknown) => options.logError?.('login environment', error));
    // The shell parser is large: loaded with the first command or rules request, not at start-up.
    this.policy = new PolicyService({
      home: this.home,
      onRulesChanged: (problems) => this.events.publish('execPolicy/rules/changed', { problems }, { ephemeral: true }),
    });
    this.events.prune();
    this.pruneTimer = setInterval(() => this.events.prune(), 60 * 60 * 1000);
    this.pruneTimer.unref();
    this.hooks = new HookDispatcher({
      supervisor: this.supervisor,
      config: () => this.config.current(),
      events: this.events,
      newId,
      now,
      ...(options.logError ? { onInternalError: options.logError } : {}),
    });
    this.elicitations = new ElicitationBroker({
      timeoutMs: options.elicitationTimeoutMs ?? 10 * 60 * 1000,
      resolved: (threadId, requestId) => this.events.publish('serverRequest/resolved', { threadId, requestId }, { threadId, ephemeral: true }),
      ...(options.logError ? { logWarning: (message: string) => options.logError?.(message, null) } : {}),
    });
    this.mcp = new McpManager({
      elicit: (params, signal) => this.elicitations.ask(params, signal),
      supervisor: this.supervisor,
      readConfigs: () => mcpServerConfigs(this.config.current().config.mcp_servers),
      onStatus: (update) => this.events.publish('mcpServer/startupStatus/updated', update, { ephemeral: true }),
      onStartupCompleted: (summary) => this.events.publish('mcpServer/startupStatus/completed', summary, { ephemeral: true }),
    });
    const mcpApprovals = new McpToolApprovals({
      lookup: (server, tool) => this.mcp.lookupTool(server, tool),
      settingsOf: (threadId) => this.sandboxSettings.commandSettings(threadId),
      ask: (target, params, itemId, signal) => this.approvals.requestMcpToolCall(target, params, itemId, signal),
      trustForever: (server, tool) => this.writeConfig([{ keyPath: `mcp_servers.${server}.tools`, value: { [tool]: { approval_mode: 'approve' } }, mergeStrategy: 'upsert' }]),
      ...(options.logError ? { logError: options.logError } : {}),
    });
    this.goals = new GoalManager({ threads: this.threads, events: this.events, newId, now });
    const builtins = builtinTools();
    const tools = new ToolRegistry(builtins, [{ specs: () => this.mcp.toolSpecs() }]);
    this.clientTools = new ClientTools({
      storeOf: (threadId) => this.threads.require(threadId).store,
      // Client tools may not shadow built-ins.
      reservedNames: new Set([...builtins.map((tool) => tool.spec.name), ...jobToolSpecs.map((spec) => spec.name)]),
      timeoutMs: options.clientToolTimeoutMs ?? 120_000,
      now,
      announced: () => this.events.announced(),
    });
    const commands = new CommandRunner({
      supervisor: this.supervisor,
      sessions: new ExecSessions(this.supervisor),
      policy: () => this.policy.engine(),
      approvals: this.approvals,
      hooks: this.hooks,
      events: this.events,
      settingsOf: (threadId) => this.sandboxSettings.commandSettings(threadId),
      newId,
      now,
      // Its output goes to every client: the slowest one paces the command.
      ackWhenClientsCatchUp: (ack) => this.commandExec.ackWhenClientsCatchUp(null, ack),
    });
    // The job engine is built below; a tool cannot run before the constructor returns.
    const jobTools = new AgentJobTools({ jobs: () => this.jobs, commands, settingsOf: (threadId) => this.sandboxSettings.commandSettings(threadId) });
    this.turns = new TurnEngine({
      threads: this.threads,
      events: this.events,
      goals: this.goals,
      tools,
      clientTools: this.clientTools,
      mcp: {
        resolveTool: (modelName) => this.mcp.resolveTool(modelName),
        callTool: (server, tool, args, callOptions) => this.mcp.callTool(server, tool, args, callOptions),
        readOnlyHint: (server, tool) => this.mcp.lookupTool(server, tool)?.facts?.hints?.readOnlyHint ?? null,
        review: (call) => mcpApprovals.review(call),
      },
      commands,
      jobTools,
      patches: new PatchRunner({
        approvals: this.approvals,
        hooks: this.hooks,
        events: this.events,
        settingsOf: (threadId) => this.sandboxSettings.commandSettings(threadId),
        newId,
        now,
      }),
      bindModel:
        options.bindModel ??
        createModelBinder({ configService: this.config, providers: this.providers, createClient: createModelClient }),
      newId,
      now,
      knownSecrets: () => this.providers.knownApiKeys(),
      ...(options.logError ? { onInternalError: options.logError } : {}),
      // The queue is built next; a turn cannot end before the constructor returns.
      onTurnEnded: (threadId, turnId) => {
        this.changes.turnEnded(turnId);
        // A command the turn left running becomes a job (it shows in the dashboard and can be paused or cancelled).
        void jobTools.adoptLeftovers(threadId, turnId).catch((error: unknown) => options.logError?.(`adopting the commands of turn ${turnId}`, error));
        this.queue.drain(threadId);
      },
      hooks: this.hooks,
      changes: this.changes,
    });
    this.queue = new TurnQueue({
      threads: this.threads,
      store: this.durable,
      events: this.events,
      turns: this.turns,
      newId,
      now,
      ...(options.logError ? { onInternalError: options.logError } : {}),
    });
    this.queue.recoverAfterRestart();
    this.jobs = new JobEngine({
      store: this.durable,
      events: this.events,
      supervisor: this.supervisor,
      newId,
      agents: { threads: this.threads, turns: this.turns, goals: this.goals, approvals: this.approvals },
      ...(options.jobConcurrency !== undefined ? { concurrency: options.jobConcurrency } : {}),
      ...(options.jobClock ? { clock: options.jobClock } : {}),
      ...(options.killGraceMs !== undefined ? { killGraceMs: options.killGraceMs } : {}),
      ...(options.logError ? { onError: options.logError } : {}),
      approvals: new JobApprovals({ policy: () => this.policy.engine(), approvals: this.approvals, settingsOf: (threadId) => this.sandboxSettings.commandSettings(threadId), now }),
    });
    this.jobs.recover();
    this.history = new ThreadHistory({ threads: this.threads, turns: this.turns, events: this.events, newId, now });
    this.methods = this.handlers();
    this.dispatcher = new Dispatcher<RequestContext>(this.methods, {
      validateResults: options.validateResults ?? resultsValidatedByDefault(),
      onInternalError: (method, error) => options.logError?.(`handler ${method} failed`, error),
    });
    // Queued turns go on by themselves, whoever connects (the runtime is whole from here on).
    this.queue.drainAll();
    // Servers start in the background: nothing (initialize, threads, turns) waits for them.
    if (options.startMcpServers ?? true) setImmediate(() => void this.mcp.reload());
  }

  private handlers(): MethodHandlers<RequestContext> {
    const threads = this.threads;
    return {
      initialize: initializeHandler(this.home),
      'thread/start': async (params, ctx) => {
        const dynamicTools = params.dynamicTools ?? [];
        const compiled = await this.clientTools.check(dynamicTools);
        const prepared = await this.projects.prepareStart(params);
        const started = await startWithSessionHooks(this.hooks, prepared, this.threadDefaults(), (hooked) =>
          threads.start(hooked, ctx.session.carrier === 'ipc' || ctx.session.clientInfo?.name === 'wheelhouse-ui' ? 'interactive' : 'api'),
        );
        this.clientTools.register(started.thread.id, dynamicTools, compiled, ctx.session.connectionId);
        return this.sandboxSettings.withEffectiveSettings(started);
      },
      'thread/list': (params) => threads.list(params),
      'thread/read': (params) => threads.read(params),
      'thread/name/set': (params) => threads.setName(params),
      'thread/archive': (params) => threads.archive(params),
      'thread/unarchive': (params) => threads.unarchive(params),
      'thread/loaded/list': (params) => threads.loadedList(params),
      'thread/resume': async (params, ctx) => {
        const { record } = threads.require(params.threadId);
        const resumed = await resumeWithSessionHooks(this.hooks, params, record, (hooked) => this.history.resume(hooked));
        this.clientTools.claim(resumed.thread.id, ctx.session.connectionId);
        this.queue.afterResume(resumed.thread.id);
        return this.sandboxSettings.withEffectiveSettings(resumed);
      },
      'thread/fork': async (params, ctx) => {
        const forked = this.history.fork(params);
        await this.clientTools.inherit(params.threadId, forked.thread.id, ctx.session.connectionId);
        return this.sandboxSettings.withEffectiveSettings(forked);
      },
      'thread/rollback': (params) => this.history.rollback(params),
      'turn/start': (params) => this.turns.start(params),
      'turn/steer': (params) => this.turns.steer(params),
      'turn/interrupt': (params) => this.turns.interrupt(params),
      'thread/queue/add': (params) => this.queue.add(params),
      'thread/queue/list': (params) => this.queue.list(params),
      'thread/queue/delete': (params) => this.queue.delete(params),
      'thread/queue/reorder': (params) => this.queue.reorder(params),
      'thread/queue/update': (params) => this.queue.update(params),
      'thread/queue/start': (params) => this.queue.start(params),
      'thread/goal/set': (params) => this.goals.set(params),
      'thread/goal/get': (params) => ({ goal: this.goals.get(params.threadId) }),
      'thread/goal/clear': (params) => this.goals.clear(params.threadId),
      'events/replay': (params) => {
        const replay = this.events.replay(params.afterSeq, params.limit ?? 1000, params.threadId ?? undefined);
        return { ...replay, lastSeq: this.events.lastSeq };
      },
      ...createConfigHandlers({
        configService: this.config,
        secretStore: this.secrets,
        providers: this.providers,
        listModels: this.listModels,
        notify: (change) => this.configChanged(change),
      }),
      'approval/list': (params) => ({ data: this.approvals.list(params.threadId) }),
      'approval/answer': (params) => {
        this.approvals.answer(params.requestId, params.decision);
        return {};
      },
      'approval/grants/list': (params) => {
        if (!params.threadId) return { data: this.approvals.allGrants() };
        threads.require(params.threadId);
        return { data: this.approvals.grantsOf(params.threadId) };
      },
      'approval/grants/revoke': (params) => {
        threads.require(params.threadId);
        return { revoked: this.approvals.revoke(params.threadId, params.prefix, params.kind ?? 'command') };
      },
      ...createMcpHandlers(this.mcp, (threadId) => void threads.require(threadId)),
      'model/test': (params) =>
        probeModel({ configService: this.config, providers: this.providers, createClient: createModelClient }, params),
      'workspace/directory/list': (params) => listDirectory(params),
      'command/exec': (params, ctx) => this.commandExec.exec(params, ctx.session.connectionId),
      'command/exec/write': (params, ctx) => this.commandExec.write(params, ctx.session.connectionId),
      'command/exec/resize': (params, ctx) => this.commandExec.resize(params, ctx.session.connectionId),
      'command/exec/terminate': (params, ctx) => this.commandExec.terminate(params, ctx.session.connectionId),
      'command/exec/ack': (params, ctx) => this.commandExec.ack(params, ctx.session.connectionId),
      'command/exec/foreground': (params, ctx) => this.commandExec.foreground(params, ctx.session.connectionId),
      'hooks/list': (params) => {
        const cwds = params.threadId ? [threads.require(params.threadId).record.cwd] : params.cwds?.length ? params.cwds : [this.threadDefaults().cwd];
        return { data: this.hooks.list(cwds) };
      },
      'thread/settings/update': (params) => this.sandboxSettings.update(params),
      'thread/sandbox/read': (params) => this.sandboxSettings.read(params.threadId),
      'execPolicy/rules/list': () => this.policy.list(),
      'execPolicy/rules/write': (params) => this.policy.write(params.change),
      'execPolicy/check': async (params) => this.policy.check(params.command, await this.sandboxSettings.commandSettings(params.threadId ?? null)),
      'job/create': (params) => this.jobs.create(params),
      'job/list': (params) => this.jobs.list(params),
      'job/read': (params) => this.jobs.read(params.jobId),
      'job/pause': (params) => this.jobs.pause(params.jobId),
      'job/resume': (params) => this.jobs.resume(params.jobId),
      'job/cancel': (params) => this.jobs.cancel(params.jobId),
      'job/retry': (params) => this.jobs.retry(params.jobId),
      'job/delete': (params) => this.jobs.delete(params.jobId),
      'job/log': (params) => this.jobs.log(params),
      'job/log/lines': (params) => this.jobs.logLines(params),
      'job/log/search': (params) => this.jobs.logSearch(params),
      'job/runs': (params) => this.jobs.runs(params.jobId),
      ...this.projects.handlers(),
      // The desktop app's shell answers these itself (electron/host/start-runtime.ts takes its handlers).
      ...desktopOnlyHandlers(),
    };
  }

  /** Tells clients what changed in config.toml; MCP servers follow their tables. */
  private configChanged(change: ConfigChangedNotification): void {
    this.events.publish('config/changed', change);
    if (change.keyPaths.some((keyPath) => keyPath === 'mcp_servers' || keyPath.startsWith('mcp_servers.'))) void this.mcp.reload();
  }

  /** A change the runtime makes itself (e.g. "always allow this MCP tool"), as a client's config/value/write would. */
  private writeConfig(edits: Parameters<ConfigService['applyEdits']>[0]): void {
    const keyPaths = this.config.applyEdits(edits);
    this.configChanged({ reason: 'write', keyPaths, providerId: null });
  }

  /** Jobs with a run in flight: what quitting would stop, or leave running in the background. */
  runningJobCount(): number {
    return this.closed ? 0 : this.jobs.runningCount();
  }

  /**
   * Stops running turns and every child process, flushes the event log and
   * closes the databases. Safe to call twice. `jobs`: `stop` (the default)
   * cancels every running job first; `keep` leaves command jobs running in
   * the background, re-attached at the next start, and agent jobs go on at
   * the next start if their goal is still active (see JobEngine.shutdown).
   */
  async shutdown(options: JobShutdownOptions = { jobs: 'stop' }): Promise<void> {
    if (this.closed) return;
    this.queue.stop();
    // Jobs first: the turns stopped next belong to agent jobs that must stay `running` for the next start.
    await this.jobs.shutdown(options);
    await this.turns.stopAll();
    // MCP servers first: they run under the supervisor, and must not read its disposal as a crash to restart from.
    await this.mcp.close();
    await this.supervisor.dispose();
    this.close();
  }

  /**
   * Flushes the event log and closes the databases at once. Running turns are
   * cut off unsaved (and recovered as interrupted at the next start); prefer
   * `shutdown()`. Safe to call twice.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.pruneTimer);
    this.mcp.killNow();
    this.queue.stop();
    // What a crash leaves: detached runs go on and are re-attached at the next start.
    this.jobs.closeNow();
    this.turns.abortAll();
    this.supervisor.disposeNow();
    process.off('exit', this.killChildrenOnExit);
    this.elicitations.close();
    this.policy.close();
    this.events.close();
    this.durable.close();
    this.memory.close();
    this.lock.release();
  }
}
