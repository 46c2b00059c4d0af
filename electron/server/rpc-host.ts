import type { Dispatcher } from '../../shared/protocol/index.js';
import type { ConnectionSession, RequestContext } from '../runtime/context.js';
import type { NotificationListener } from '../runtime/event-log.js';
import { RpcConnection, type ConnectionSink } from './rpc-connection.js';

/** What connections dispatch into: a Runtime, or one still opening its stores (electron/host/start-runtime.ts). */
export interface RpcHostTarget {
  readonly dispatcher: Dispatcher<RequestContext>;
  readonly events: { subscribe(listener: NotificationListener): () => void };
}

/**
 * Attaches client connections of every carrier to one runtime and fans each
 * notification out to all of them, serialising it once.
 */
export class RpcHost {
  private readonly connections = new Set<RpcConnection>();
  private readonly unsubscribe: () => void;
  private nextId = 1;

  constructor(readonly runtime: RpcHostTarget) {
    this.unsubscribe = runtime.events.subscribe((notification, text) => {
      for (const connection of this.connections) connection.sendNotification(notification.method, text);
    });
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  connect(carrier: ConnectionSession['carrier'], sink: ConnectionSink): RpcConnection {
    const connection = new RpcConnection(`${carrier}-${this.nextId++}`, carrier, sink, this.runtime.dispatcher);
    this.connections.add(connection);
    return connection;
  }

  disconnect(connection: RpcConnection): void {
    connection.close();
    this.connections.delete(connection);
  }

  close(): void {
    for (const connection of this.connections) connection.close();
    this.connections.clear();
    this.unsubscribe();
  }
}
