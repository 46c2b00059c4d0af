import { ExecError } from '../exec-error.js';
import type {
  DetachedAttachment,
  DetachedEnvironment,
  DetachedRunEvent,
  DetachedRunHandle,
  DetachedRunPlace,
  DetachedRunSpec,
  DetachedRunState,
} from './detached-run.js';

/**
 * The job engine's one DetachedEnvironment, routing each run to where it
 * lives: this machine, or the environment (SSH host, Slurm cluster) its
 * place names. The engine never knows the difference.
 */
export class EnvironmentRouter implements DetachedEnvironment {
  readonly kind = 'local' as const;

  constructor(
    private readonly local: DetachedEnvironment,
    /** The environment of an id, or null when there is none by that id. */
    private readonly remote: (environmentId: string) => DetachedEnvironment | null,
  ) {}

  get unsupported(): string | null {
    return this.local.unsupported;
  }

  prepare(runId: string, environmentId?: string): DetachedRunPlace {
    return this.of(environmentId).prepare(runId);
  }

  startDetached(place: DetachedRunPlace, spec: DetachedRunSpec): Promise<DetachedRunHandle> {
    return this.of(place.environmentId).startDetached(place, spec);
  }

  find(place: DetachedRunPlace): DetachedRunHandle | null {
    return this.of(place.environmentId).find(place);
  }

  isAlive(handle: DetachedRunHandle): boolean {
    return this.of(handle.environmentId).isAlive(handle);
  }

  state(handle: DetachedRunHandle): DetachedRunState {
    return this.of(handle.environmentId).state(handle);
  }

  attach(handle: DetachedRunHandle, fromOffset: number, listener: (event: DetachedRunEvent) => void): DetachedAttachment {
    return this.of(handle.environmentId).attach(handle, fromOffset, listener);
  }

  signal(handle: DetachedRunHandle, signal: NodeJS.Signals): void {
    this.of(handle.environmentId).signal(handle, signal);
  }

  terminate(handle: DetachedRunHandle, graceMs: number): Promise<void> {
    return this.of(handle.environmentId).terminate(handle, graceMs);
  }

  readLog(place: DetachedRunPlace, offset: number, length: number): Buffer {
    return this.of(place.environmentId).readLog(place, offset, length);
  }

  logSize(place: DetachedRunPlace): number {
    return this.of(place.environmentId).logSize(place);
  }

  appendNote(place: DetachedRunPlace, text: string): void {
    this.of(place.environmentId).appendNote(place, text);
  }

  remove(place: DetachedRunPlace): void {
    this.of(place.environmentId).remove(place);
  }

  private of(environmentId: string | undefined): DetachedEnvironment {
    if (environmentId === undefined || environmentId === 'local') return this.local;
    const environment = this.remote(environmentId);
    if (!environment) throw new ExecError('invalid-spec', `no environment ${JSON.stringify(environmentId)}: add it in Settings → Machines (environment/add)`);
    return environment;
  }
}
