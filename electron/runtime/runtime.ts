import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { Dispatcher, type MethodHandlers } from '../../shared/protocol/index.js';
import { StateStore } from '../store/state-store.js';
import type { RequestContext } from './context.js';
import { EventLog } from './event-log.js';
import { homePaths } from './home.js';
import { ThreadManager, type ThreadDefaults } from './thread-manager.js';
import { WHEELHOUSE_VERSION } from './version.js';

export interface RuntimeOptions {
  /** The Wheelhouse home folder (state database, config). */
  readonly home: string;
  /** Path of a better-sqlite3 binding for this host's ABI (the Electron app passes one). */
  readonly nativeBinding?: string;
  /** Check results against their schemas (tests). */
  readonly validateResults?: boolean;
  readonly defaults?: Partial<ThreadDefaults>;
  readonly now?: () => number;
  readonly newId?: () => string;
  readonly eventFlushDelayMs?: number;
  /** Where unexpected handler failures are reported (never the client's concern). */
  readonly logError?: (message: string, error: unknown) => void;
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
  readonly dispatcher: Dispatcher<RequestContext>;
  private closed = false;

  constructor(options: RuntimeOptions) {
    this.home = options.home;
    const paths = homePaths(options.home);
    fs.mkdirSync(paths.home, { recursive: true });
    const dbOptions = options.nativeBinding ? { nativeBinding: options.nativeBinding } : {};
    this.durable = StateStore.open(paths.stateDb, dbOptions);
    this.memory = StateStore.inMemory(dbOptions);
    const now = options.now ?? Date.now;
    this.events = new EventLog(this.durable, this.memory, {
      now,
      ...(options.eventFlushDelayMs !== undefined ? { flushDelayMs: options.eventFlushDelayMs } : {}),
    });
    const defaults: ThreadDefaults = {
      modelProvider: options.defaults?.modelProvider ?? 'deepseek',
      model: options.defaults?.model ?? null,
      cwd: options.defaults?.cwd ?? os.homedir(),
    };
    this.threads = new ThreadManager({
      durable: this.durable,
      memory: this.memory,
      events: this.events,
      version: WHEELHOUSE_VERSION,
      defaults: () => defaults,
      newId: options.newId ?? randomUUID,
      now,
    });
    this.dispatcher = new Dispatcher<RequestContext>(this.handlers(), {
      validateResults: options.validateResults ?? false,
      onInternalError: (method, error) => options.logError?.(`handler ${method} failed`, error),
    });
  }

  private handlers(): MethodHandlers<RequestContext> {
    const threads = this.threads;
    return {
      initialize: (params, ctx) => {
        ctx.session.clientInfo = params.clientInfo;
        ctx.session.optOut = new Set(params.capabilities?.optOutNotificationMethods ?? []);
        return {
          userAgent: `wheelhouse/${WHEELHOUSE_VERSION} (${os.platform()} ${os.release()}; ${os.arch()})`,
          wheelhouseHome: this.home,
          platformFamily: process.platform === 'win32' ? 'windows' : 'unix',
          platformOs: process.platform === 'darwin' ? 'macos' : process.platform,
          serverVersion: WHEELHOUSE_VERSION,
        };
      },
      'thread/start': (params, ctx) =>
        threads.start(params, ctx.session.carrier === 'ipc' || ctx.session.clientInfo?.name === 'wheelhouse-ui' ? 'interactive' : 'api'),
      'thread/list': (params) => threads.list(params),
      'thread/read': (params) => threads.read(params),
      'thread/name/set': (params) => threads.setName(params),
      'thread/archive': (params) => threads.archive(params),
      'thread/unarchive': (params) => threads.unarchive(params),
      'thread/loaded/list': (params) => threads.loadedList(params),
    };
  }

  /** Flushes the event log and closes the databases. Safe to call twice. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.events.close();
    this.durable.close();
    this.memory.close();
  }
}
