import type { Dispatcher, NotificationMethod, NotificationParamsOf } from '../../shared/protocol/index.js';
import type { ConnectionSession, RequestContext } from '../runtime/context.js';
import type { OutgoingSender } from '../runtime/outgoing/outgoing-sender.js';
import { RpcConnection, type ConnectionSink } from './rpc-connection.js';

/** What connections dispatch into: a Runtime, or one still opening its stores (electron/host/start-runtime.ts). */
export interface RpcHostTarget {
  readonly dispatcher: Dispatcher<RequestContext>;
  /** Everything sent to clients unasked goes through it; the host only registers connections and hands answers back. */
  readonly outgoing: OutgoingSender;
}

/**
 * Attaches client connections of one carrier to a runtime: each connection is
 * registered with the runtime's OutgoingSender once initialised (it replays
 * what waits for an answer), and its answers to server requests go back there.
 */
export class RpcHost<Target extends RpcHostTarget = RpcHostTarget> {
  private readonly connections = new Map<RpcConnection, (() => void) | null>();

  constructor(readonly runtime: Target) {}

  /** The most output any connection's carrier holds unsent (what a slow client costs this process). */
  get largestBacklogBytes(): number {
    let largest = 0;
    for (const connection of this.connections.keys()) largest = Math.max(largest, connection.unsentBytes);
    return largest;
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  /**
   * Sends a notification of the host itself (not a runtime event: no `seq`,
   * never in the log or a replay) to every initialised connection; the
   * desktop shell says this way that its runtime failed or what to show.
   * Returns how many connections it reached.
   */
  broadcast<N extends NotificationMethod>(method: N, params: NotificationParamsOf<N>): number {
    return this.runtime.outgoing.broadcast(method, params);
  }

  connect(carrier: ConnectionSession['carrier'], sink: ConnectionSink): RpcConnection {
    const { outgoing } = this.runtime;
    const connection = new RpcConnection(outgoing.newConnectionId(carrier), carrier, sink, this.runtime.dispatcher);
    this.connections.set(connection, null);
    connection.onResponse = (response) => void outgoing.answer(connection.connectionId, response);
    // A client that connects (or reloads) while approvals or a server's question wait gets them too.
    connection.onInitialized = () => {
      if (connection.isOpen && this.connections.has(connection)) this.connections.set(connection, outgoing.attach(connection));
    };
    return connection;
  }

  /** The connection is gone: its waiting requests for it alone fail, its terminals die. */
  disconnect(connection: RpcConnection): void {
    connection.close();
    const detach = this.connections.get(connection);
    this.connections.delete(connection);
    detach?.();
  }

  close(): void {
    for (const connection of [...this.connections.keys()]) this.disconnect(connection);
  }
}
