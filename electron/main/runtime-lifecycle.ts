import type { DesktopRuntimeState } from '../../shared/protocol/index.js';
import type { JobsOnQuit } from './quit-flow.js';

export interface LifecycleParts<S> {
  /** Opens a runtime with its carriers. Never throws: a runtime that cannot start is one whose `ready` rejects. */
  readonly open: () => S;
  /** Settles when the runtime is open (rejects with why it is not). */
  readonly ready: (services: S) => Promise<unknown>;
  /** Shuts the runtime and its carriers down; running jobs are kept or stopped as chosen. */
  readonly close: (services: S, jobs: JobsOnQuit) => Promise<void>;
  /** Why it failed, in words for the window's banner. */
  readonly describe: (error: unknown) => string;
}

/**
 * The desktop app's one runtime over time: opened at start, shut down at
 * quit, and restarted when the person asks (after it failed to start, say
 * because another Wheelhouse held its home). Its state is what the window's
 * banner and the tray show; every change is told to the listeners.
 */
export class RuntimeLifecycle<S> {
  private services: S | null = null;
  private current: DesktopRuntimeState = { state: 'starting' };
  private readonly listeners = new Set<(state: DesktopRuntimeState) => void>();
  private restarting: Promise<S | null> | null = null;
  private stopped = false;

  constructor(private readonly parts: LifecycleParts<S>) {}

  get state(): DesktopRuntimeState {
    return this.current;
  }

  /** The open services (null before the start and after the shutdown). */
  get running(): S | null {
    return this.services;
  }

  onChange(listener: (state: DesktopRuntimeState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Opens the runtime (once); its state follows `ready`. */
  start(): S {
    if (this.services) return this.services;
    if (this.stopped) throw new Error('the runtime was shut down for good');
    const services = this.parts.open();
    this.services = services;
    this.set({ state: 'starting' });
    this.parts.ready(services).then(
      () => {
        if (this.services === services) this.set({ state: 'running' });
      },
      (error: unknown) => {
        if (this.services === services) this.set({ state: 'failed', reason: this.parts.describe(error) });
      },
    );
    return services;
  }

  /**
   * Shuts the runtime down (jobs kept running) and opens a new one; a second
   * call while one is under way joins it. Resolves with the new services, or
   * null when a shutdown came first.
   */
  restart(): Promise<S | null> {
    this.restarting ??= (async () => {
      try {
        this.set({ state: 'restarting' });
        // The request that asked for the restart gets its answer before its connection closes.
        await new Promise((resolve) => setImmediate(resolve));
        const old = this.services;
        this.services = null;
        if (old) await this.parts.close(old, 'keep');
        return this.stopped ? null : this.start();
      } finally {
        this.restarting = null;
      }
    })();
    return this.restarting;
  }

  /** Shuts the runtime down for good (the app quits); safe to call twice. */
  async shutdown(jobs: JobsOnQuit): Promise<void> {
    this.stopped = true;
    if (this.restarting) await this.restarting;
    const services = this.services;
    this.services = null;
    if (services) await this.parts.close(services, jobs);
  }

  private set(state: DesktopRuntimeState): void {
    this.current = state;
    for (const listener of this.listeners) listener(state);
  }
}
