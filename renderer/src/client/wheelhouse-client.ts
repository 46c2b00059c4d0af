import { RpcClient, type FallbackRequestHandler, type ServerRequestHandler } from '../../../shared/protocol/client.js';
import type { ServerRequestMethod } from '../../../shared/protocol/registry.js';
import { ErrorCode, RpcError } from '../../../shared/protocol/errors.js';
import { DESKTOP_CLIENT_NAME, type InitializeResult } from '../../../shared/protocol/methods/initialize.js';
import type {
  AnyNotification,
  ClientMethod,
  NotificationMethod,
  NotificationParamsOf,
  ParamsOf,
  ResultOf,
} from '../../../shared/protocol/registry.js';
import { NOT_CONNECTED_MESSAGE } from '../format/request-errors.js';
import { AccessError, type AccessProblem } from './access-problem.js';
import { reconnectDelayMs } from './reconnect-backoff.js';
import type { ClosableTransport } from './websocket-transport.js';

/** Where the connection stands, as a person would describe it. */
export type ConnectionStatus = 'connecting' | 'connected' | 'reconnecting' | 'disconnected';

/** What the UI shows about the connection. */
export interface ConnectionSnapshot {
  readonly status: ConnectionStatus;
  /** Why the last attempt failed or the link dropped; null while healthy. */
  readonly error: string | null;
  /** The runtime's answer to `initialize` on the current connection. */
  readonly server: InitializeResult | null;
  /** Set when retrying cannot help until the page gets a (new) access token. */
  readonly problem: AccessProblem | null;
  /** `error` is the runtime's own word on why it closed the connection (it stopped), not a dropped link. */
  readonly closedByServer: boolean;
}

/** Opens one fresh transport; rejects with a readable message when it cannot. */
export type Connector = () => Promise<ClosableTransport>;

export interface WheelhouseClientOptions {
  readonly connector: Connector;
  /** Whether a dropped transport should be reopened (false for the Electron bridge, which never drops). */
  readonly reconnect: boolean;
  readonly clientVersion: string;
}

type NotificationListener = (notification: AnyNotification) => void;

/**
 * The renderer's one link to the runtime. Wraps the typed RpcClient, picks up
 * again after a drop (with backoff), re-runs `initialize` on every connect and
 * tells listeners so stores can refetch. Notification listeners survive
 * reconnects, so stores subscribe once.
 */
export class WheelhouseClient {
  private snapshot: ConnectionSnapshot = { status: 'connecting', error: null, server: null, problem: null, closedByServer: false };
  private rpc: RpcClient | null = null;
  private transport: ClosableTransport | null = null;
  private attempt = 0;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private stopped = true;
  private inFlight = false;
  /** Bumped by every connect; an older attempt that finishes late is ignored. */
  private generation = 0;
  private everConnected = false;
  /** Why the server said it closed the last connection ("Wheelhouse stopped…"), kept while it stays unreachable. */
  private serverCloseReason: string | null = null;
  private readonly statusListeners = new Set<(snapshot: ConnectionSnapshot) => void>();
  private readonly readyListeners = new Set<(server: InitializeResult) => void>();
  private readonly notificationListeners = new Set<NotificationListener>();
  private readonly requestHandlers = new Map<ServerRequestMethod, ServerRequestHandler<ServerRequestMethod>>();
  private fallbackHandler: FallbackRequestHandler | null = null;

  constructor(private readonly options: WheelhouseClientOptions) {}

  /** Starts connecting; safe to call once per client. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    void this.connect();
  }

  /** Closes the connection and stops reconnecting. */
  stop(): void {
    this.stopped = true;
    this.clearRetry();
    this.dropConnection();
    this.setSnapshot({ status: 'disconnected', error: null, server: null, problem: null, closedByServer: false });
  }

  /** Skips the backoff wait and tries again now (the "Retry" button, or the browser coming back online). */
  retryNow(): void {
    if (this.stopped || this.snapshot.problem || this.inFlight || this.rpc) return;
    this.clearRetry();
    void this.connect();
  }

  /** Drops any connection and connects afresh at once (the page got a new access token). */
  reconnectNow(): void {
    if (this.stopped) return;
    this.clearRetry();
    this.dropConnection();
    this.attempt = 0;
    this.setSnapshot({ ...this.snapshot, problem: null });
    void this.connect();
  }

  getSnapshot(): ConnectionSnapshot {
    return this.snapshot;
  }

  /** Sends a typed request on the live connection; rejects with an RpcError when offline or on failure. */
  request<M extends ClientMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
    if (!this.rpc || this.snapshot.status !== 'connected') {
      return Promise.reject(new RpcError(ErrorCode.Internal, NOT_CONNECTED_MESSAGE));
    }
    return this.rpc.request(method, params);
  }

  /**
   * Listens to one notification method on every present and future
   * connection; `seq` is the event's place in the runtime's log (null when
   * the runtime sent none).
   */
  on<N extends NotificationMethod>(
    method: N,
    listener: (params: NotificationParamsOf<N>, seq: number | null) => void,
  ): () => void {
    const wrapped: NotificationListener = (n) => {
      if (n.method === method) listener(n.params as NotificationParamsOf<N>, n.seq ?? null);
    };
    this.notificationListeners.add(wrapped);
    return () => this.notificationListeners.delete(wrapped);
  }

  /** Answers a server request method on every present and future connection (the runtime re-sends what waits after a reconnect). */
  handle<M extends ServerRequestMethod>(method: M, handler: ServerRequestHandler<M>): void {
    this.requestHandlers.set(method, handler as unknown as ServerRequestHandler<ServerRequestMethod>);
    this.rpc?.handle(method, handler);
  }

  /** Answers server requests no handler takes (shown as a generic prompt). */
  handleOthers(handler: FallbackRequestHandler): void {
    this.fallbackHandler = handler;
    this.rpc?.handleOthers(handler);
  }

  /** Listens to connection status changes. */
  onStatus(listener: (snapshot: ConnectionSnapshot) => void): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  /** Called after every successful `initialize`: the moment to (re)fetch state. */
  onReady(listener: (server: InitializeResult) => void): () => void {
    this.readyListeners.add(listener);
    return () => this.readyListeners.delete(listener);
  }

  private async connect(): Promise<void> {
    const generation = ++this.generation;
    this.inFlight = true;
    try {
      await this.attemptConnection(generation);
    } finally {
      if (generation === this.generation) this.inFlight = false;
    }
  }

  private async attemptConnection(generation: number): Promise<void> {
    this.attempt += 1;
    this.setSnapshot({
      status: this.everConnected ? 'reconnecting' : 'connecting',
      error: this.snapshot.error,
      server: null,
      problem: null,
      closedByServer: this.snapshot.closedByServer,
    });
    let transport: ClosableTransport;
    try {
      transport = await this.options.connector();
    } catch (error) {
      if (generation !== this.generation) return;
      if (error instanceof AccessError) {
        // Retrying with the same token cannot succeed; wait for a new link (reconnectNow).
        this.setSnapshot({ status: 'disconnected', error: error.message, server: null, problem: error.problem, closedByServer: false });
        return;
      }
      // Until it answers again, why it went away says more than "can't reach it".
      this.scheduleRetry(this.serverCloseReason ?? messageOf(error));
      return;
    }
    if (this.stopped || generation !== this.generation) {
      transport.close();
      return;
    }
    // Development builds check every result against the protocol; production trusts the runtime.
    const rpc = new RpcClient(transport, { validateResults: import.meta.env.DEV });
    this.transport = transport;
    this.rpc = rpc;
    for (const [method, handler] of this.requestHandlers) rpc.handle(method, handler);
    rpc.handleOthers(this.fallbackHandler);
    rpc.onNotification((n) => {
      for (const listener of this.notificationListeners) listener(n);
    });
    transport.onClose((reason) => {
      if (this.rpc !== rpc) return;
      this.dropConnection();
      // The server says why it closed (e.g. "Wheelhouse stopped…"); a bare code means the link dropped.
      this.serverCloseReason = reason.startsWith('code ') ? null : reason;
      this.scheduleRetry(this.serverCloseReason ?? 'Connection lost');
    });
    let server: InitializeResult;
    try {
      server = await rpc.request('initialize', {
        clientInfo: { name: DESKTOP_CLIENT_NAME, title: 'Wheelhouse', version: this.options.clientVersion },
      });
    } catch (error) {
      if (this.rpc !== rpc) return;
      this.dropConnection();
      this.scheduleRetry(`The runtime refused this window: ${messageOf(error)}`);
      return;
    }
    if (this.rpc !== rpc) return;
    this.attempt = 0;
    this.everConnected = true;
    this.serverCloseReason = null;
    this.setSnapshot({ status: 'connected', error: null, server, problem: null, closedByServer: false });
    for (const listener of this.readyListeners) listener(server);
  }

  private scheduleRetry(error: string): void {
    if (this.stopped) return;
    const closedByServer = this.serverCloseReason !== null && error === this.serverCloseReason;
    if (!this.options.reconnect) {
      this.setSnapshot({ status: 'disconnected', error, server: null, problem: null, closedByServer });
      return;
    }
    this.setSnapshot({ status: this.everConnected ? 'reconnecting' : 'disconnected', error, server: null, problem: null, closedByServer });
    this.clearRetry();
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.connect();
    }, reconnectDelayMs(this.attempt));
  }

  private dropConnection(): void {
    const { rpc, transport } = this;
    this.rpc = null;
    this.transport = null;
    rpc?.dispose();
    transport?.close();
  }

  private clearRetry(): void {
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  private setSnapshot(next: ConnectionSnapshot): void {
    this.snapshot = next;
    for (const listener of this.statusListeners) listener(next);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
