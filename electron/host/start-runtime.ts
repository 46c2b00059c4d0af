import {
  Dispatcher,
  type DesktopMethod,
  RpcError,
  type ClientMethod,
  type HandlerLookup,
  type MethodHandlers,
} from '../../shared/protocol/index.js';
import type { ApprovalWatcher } from '../runtime/approvals/approval-broker.js';
import type { RequestContext } from '../runtime/context.js';
import type { NotificationListener } from '../runtime/event-log.js';
import { initializeHandler, resultsValidatedByDefault } from '../runtime/initialize-handler.js';
import type { JobShutdownOptions } from '../runtime/jobs/job-engine.js';
import type { Runtime } from './runtime.js';
import { OutgoingSender } from '../runtime/outgoing/outgoing-sender.js';
import type { HostRuntimeOptions } from './create-runtime.js';
import type { HomeLock } from '../runtime/home-lock.js';
import { lockHome } from './lock-home.js';

/** The desktop shell's answers to the desktop methods (open at login, restart); they work whether or not the runtime opened. */
export type DesktopHandlers = Pick<MethodHandlers<RequestContext>, DesktopMethod>;

/**
 * A runtime whose home is locked but whose stores are still opening. Carriers
 * attach to it at once (RpcHost takes it as it takes a Runtime): `initialize`
 * is answered straight away, every other request waits for `ready`.
 */
export interface StartingRuntime {
  readonly dispatcher: Dispatcher<RequestContext>;
  readonly events: { subscribe(listener: NotificationListener): () => void };
  /** Carriers attach their connections here at once; the runtime sends through it once open. */
  readonly outgoing: OutgoingSender;
  readonly approvals: { watch(watcher: ApprovalWatcher): () => void };
  /** The runtime, once config, secrets and both SQLite stores are open; rejects with why they could not be. */
  readonly ready: Promise<Runtime>;
  /** The runtime if it is open already, else null (nothing can be running yet). */
  current(): Runtime | null;
  /** Jobs with a run in flight (0 before the runtime is open): for "quit and keep them running, or stop them?". */
  runningJobCount(): number;
  /** Stops running turns and closes the runtime once it is open (jobs kept or stopped as asked, default stop); nothing to do if it never opened. */
  shutdown(options?: JobShutdownOptions): Promise<void>;
}

/**
 * Takes the home lock now (a home in use fails here, before any request is
 * read) unless the caller holds it already, then opens the rest on the next
 * turn of the event loop, so a carrier can let the first input be read and `initialize` answered
 * before the runtime modules load and SQLite opens and migrates. If opening fails, the lock is released, and every
 * request waiting for the runtime, and every later one, gets a -32603 error
 * saying why.
 */
export function startRuntime(
  options: HostRuntimeOptions,
  desktop: DesktopHandlers | null = null,
  /** The home's lock when the caller took it already (`app-server` does, before it answers anything: first-answer.ts). */
  heldLock?: HomeLock,
): StartingRuntime {
  const lock = heldLock ?? lockHome(options.home);
  const outgoing = options.outgoing ?? new OutgoingSender();
  const ready = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
    try {
      // The runtime's modules (stores, better-sqlite3, turn engine, tools) load off the first response's path.
      const { createRuntimeHolding } = await import('./create-runtime.js');
      return createRuntimeHolding(lock, { ...options, outgoing });
    } catch (error) {
      lock.release(); // createRuntimeHolding released it already when it got that far; releasing twice is harmless
      throw error;
    }
  });
  return startingRuntime(options, ready, desktop, outgoing);
}

/**
 * A runtime that could not even start (its home is in use, say): it answers
 * `initialize` and the desktop methods, and every other request with -32603
 * saying why, so the desktop window can show what happened and offer a restart.
 */
export function failedRuntime(options: Pick<HostRuntimeOptions, 'home' | 'validateResults' | 'logError'>, error: unknown, desktop: DesktopHandlers | null = null): StartingRuntime {
  const ready = Promise.reject(error instanceof Error ? error : new Error(String(error)));
  return startingRuntime(options, ready, desktop, new OutgoingSender());
}

function startingRuntime(
  options: Pick<HostRuntimeOptions, 'home' | 'validateResults' | 'logError'>,
  ready: Promise<Runtime>,
  desktop: DesktopHandlers | null,
  outgoing: OutgoingSender,
): StartingRuntime {
  let opened: Runtime | null = null;
  // A failure is reported through `ready` and through the requests; it is never unhandled.
  ready.then(
    (runtime) => (opened = runtime),
    () => undefined,
  );

  const unavailable = (error: unknown) =>
    RpcError.because('runtime.unavailable', `the Wheelhouse home ${options.home} could not be opened: ${error instanceof Error ? error.message : String(error)}`);
  const waitForRuntime = <M extends ClientMethod>(method: M) =>
    (async (params: unknown, ctx: RequestContext) => {
      const runtime = await ready.catch((error: unknown) => {
        throw unavailable(error);
      });
      return (runtime.methods[method] as (p: unknown, c: RequestContext) => unknown)(params, ctx);
    }) as unknown as MethodHandlers<RequestContext>[M];
  const initialize = initializeHandler(options.home);
  // Looked up per request rather than tabled per method, so answering `initialize` needs no table of every method.
  const handlerOf = ((method: ClientMethod) => {
    if (method === 'initialize') return initialize;
    if (desktop && Object.prototype.hasOwnProperty.call(desktop, method)) return desktop[method as DesktopMethod];
    return waitForRuntime(method);
  }) as HandlerLookup<RequestContext>;
  const dispatcher = new Dispatcher<RequestContext>(handlerOf, {
    validateResults: options.validateResults ?? resultsValidatedByDefault(),
    onInternalError: (method, error) => options.logError?.(`handler ${method} failed`, error),
  });

  /**
   * Attaches to the runtime once it is open; returns the detach. Attached
   * before any waiting request runs: those continue after `ready` too, and
   * were queued later.
   */
  const whenOpen = (attach: (runtime: Runtime) => () => void): (() => void) => {
    let detach: (() => void) | null = null;
    let cancelled = false;
    void ready.then(
      (runtime) => {
        if (!cancelled) detach = attach(runtime);
      },
      () => undefined,
    );
    return () => {
      cancelled = true;
      detach?.();
    };
  };

  return {
    dispatcher,
    ready,
    current: () => opened,
    events: { subscribe: (listener) => whenOpen((runtime) => runtime.events.subscribe(listener)) },
    outgoing,
    approvals: { watch: (watcher) => whenOpen((runtime) => runtime.approvals.watch(watcher)) },
    runningJobCount: () => opened?.runningJobCount() ?? 0,
    async shutdown(options) {
      const runtime = await ready.catch(() => null);
      await runtime?.shutdown(options);
    },
  };
}
