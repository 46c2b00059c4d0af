import { Dispatcher, type MethodHandlers } from '../../shared/protocol/index.js';
import type { RequestContext } from '../runtime/context.js';
import { resultsValidatedByDefault } from '../runtime/initialize-handler.js';
import { runtimeHandlers } from '../runtime/handlers/runtime-handlers.js';
import type { JobShutdownOptions } from '../runtime/jobs/job-engine.js';
import { systemClock, type JobClock } from '../runtime/jobs/job-clock.js';
import type { CarrierRuntime } from './carrier-runtime.js';
import { composeRuntime, type RuntimeOptions, type RuntimeParts, type RuntimeServices } from './compose-runtime.js';
import { recoverAfterRestart } from './restart-recovery.js';

/** How often retention keeps the home within its budgets. */
const PRUNE_INTERVAL_MS = 60 * 60 * 1000;

/**
 * One runtime on one home: its services (composed by compose-runtime.ts),
 * the dispatcher every carrier calls into, and the lifecycle. Everything the
 * runtime does to the process as a whole (the exit hook, the hourly prune,
 * the login-shell warm-up, starting MCP servers, draining queued turns)
 * happens in `start()`, and is undone by `shutdown()` or `close()`.
 */
export class Runtime implements CarrierRuntime {
  readonly dispatcher: Dispatcher<RequestContext>;
  /** The method handlers behind `dispatcher`, for a host that validates requests itself (start-runtime.ts). */
  readonly methods: MethodHandlers<RequestContext>;
  private pruneTimer: unknown = null;
  private stopSending: () => void = () => undefined;
  /** Timers of the runtime's own (retention): the host's clock, driven by tests. */
  private readonly clock: JobClock;
  private started = false;
  private closed = false;
  /** An exit nobody planned (process.exit elsewhere) still takes every child process along. */
  private readonly killChildrenOnExit = () => this.services.supervisor.disposeNow();

  constructor(
    readonly services: RuntimeServices,
    private readonly options: Pick<RuntimeOptions, 'validateResults' | 'logError' | 'startMcpServers' | 'upkeepClock'> = {},
  ) {
    this.clock = options.upkeepClock ?? systemClock;
    this.methods = runtimeHandlers(services);
    this.dispatcher = new Dispatcher<RequestContext>(this.methods, {
      validateResults: options.validateResults ?? resultsValidatedByDefault(),
      onInternalError: (method, error) => options.logError?.(`handler ${method} failed`, error),
    });
  }

  /** Builds every service on the parts, recovers what the last run left, and starts. */
  static open(parts: RuntimeParts, options: RuntimeOptions = {}): Runtime {
    const services = composeRuntime(parts, options);
    recoverAfterRestart(services, options.now ?? Date.now);
    const runtime = new Runtime(services, options);
    runtime.start();
    return runtime;
  }

  /** The process-wide side effects of a running runtime. Called once, by `open`. */
  start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    const { events, supervisor, queue, mcp } = this.services;
    process.on('exit', this.killChildrenOnExit);
    // Warm the login-shell environment (a shell start, up to 10 s) without holding up initialize.
    void supervisor.loginEnvironment().catch((error: unknown) => this.options.logError?.('login environment', error));
    this.pruneNow();
    // Queued turns go on by themselves, whoever connects.
    queue.drainAll();
    // Servers start in the background: nothing (initialize, threads, turns) waits for them.
    if (this.options.startMcpServers ?? true) setImmediate(() => void (this.closed || mcp.reload()));
    // Live from here on: what recovery published while opening is in the log (events/replay), not news to early clients.
    this.stopSending = this.services.outgoing.follow(events);
  }

  /** Retention now, then again an hour later on the runtime's clock (a driven clock in tests). */
  private pruneNow(): void {
    if (this.closed) return;
    this.pruneTimer = null;
    this.services.retention.prune();
    this.pruneTimer = this.clock.setTimeout(() => this.pruneNow(), PRUNE_INTERVAL_MS);
  }

  // The services carriers, the desktop shell and tests reach, by name.
  get home() { return this.services.home; }
  get events() { return this.services.events; }
  get threads() { return this.services.threads; }
  get turns() { return this.services.turns; }
  get approvals() { return this.services.approvals; }
  get elicitations() { return this.services.elicitations; }
  get clientTools() { return this.services.clientTools; }
  get commandExec() { return this.services.commandExec; }
  get outgoing() { return this.services.outgoing; }
  get jobs() { return this.services.jobs; }
  get schedules() { return this.services.schedules; }
  get config() { return this.services.config; }

  finishedApprovalState(requestId: string): string | null {
    const row = this.services.durable.approvals.get(requestId) ?? this.services.memory.approvals.get(requestId);
    return row?.state ?? null;
  }

  /** Jobs with a run in flight: what quitting would stop, or leave running in the background. */
  runningJobCount(): number {
    return this.closed ? 0 : this.services.jobs.runningCount();
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
    const { queue, schedules, jobs, turns, mcp, supervisor } = this.services;
    queue.stop();
    // No new run starts while the jobs stop.
    schedules.stop();
    // Jobs first: the turns stopped next belong to agent jobs that must stay `running` for the next start.
    await jobs.shutdown(options);
    await turns.stopAll();
    // MCP servers first: they run under the supervisor, and must not read its disposal as a crash to restart from.
    await mcp.close();
    await supervisor.dispose();
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
    const s = this.services;
    if (this.pruneTimer !== null) this.clock.clearTimeout(this.pruneTimer);
    this.pruneTimer = null;
    s.mcp.killNow();
    s.queue.stop();
    s.schedules.stop();
    // What a crash leaves: detached runs go on and are re-attached at the next start.
    s.jobs.closeNow();
    // Connections to machines end; runs on them go on and are re-attached at the next start.
    s.environments.close();
    s.turns.abortAll();
    s.supervisor.disposeNow();
    process.off('exit', this.killChildrenOnExit);
    s.elicitations.close();
    s.commandExec.close();
    // Approvals still waiting stay recorded as waiting: the next start ends them (endLeftovers).
    this.stopSending();
    s.policy.close();
    s.events.close();
    s.durable.close();
    s.memory.close();
    s.lock.release();
  }
}
