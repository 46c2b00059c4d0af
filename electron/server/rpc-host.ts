import type { Runtime } from '../runtime/runtime.js';
import type { ConnectionSession } from '../runtime/context.js';
import type { ApprovalSender } from '../runtime/approvals/approval-broker.js';
import { RpcConnection, type ConnectionSink } from './rpc-connection.js';

/** An approval waits for the person as long as it takes (setTimeout's longest delay). */
const APPROVAL_WAIT_MS = 0x7fffffff;

/**
 * Attaches client connections of every carrier to one runtime and fans each
 * notification out to all of them, serialising it once.
 */
export class RpcHost {
  private readonly connections = new Set<RpcConnection>();
  private readonly unsubscribe: () => void;
  private readonly removeRequester: () => void;
  private readonly removeApprovalSender: () => void;
  private nextId = 1;

  constructor(readonly runtime: Runtime) {
    this.unsubscribe = runtime.events.subscribe((notification, text) => {
      for (const connection of this.connections) connection.sendNotification(notification.method, text);
    });
    // Client-side tools are run by the connection that started (or last resumed) the thread.
    this.removeRequester = runtime.clientTools.addRequester((ownerId, params, options) => {
      const owner = [...this.connections].find((c) => c.session.connectionId === ownerId && c.isOpen && c.isInitialized);
      return owner ? owner.request('item/tool/call', params, options) : null;
    });
    // Approvals go to every connected client; the first answer wins.
    this.removeApprovalSender = runtime.approvals.addSender((pending, signal, answer) => {
      for (const connection of this.connections) this.sendApproval(connection, pending, signal, answer);
    });
  }

  private sendApproval(connection: RpcConnection, ...[pending, signal, answer]: Parameters<ApprovalSender>): void {
    if (!connection.isOpen || !connection.isInitialized) return;
    connection
      .request(pending.method, pending.params, { timeoutMs: APPROVAL_WAIT_MS, signal, id: pending.requestId })
      .then((result) => answer(result.decision))
      // Withdrawn (answered elsewhere, turn stopped), refused or disconnected: others may still answer.
      .catch(() => undefined);
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  connect(carrier: ConnectionSession['carrier'], sink: ConnectionSink): RpcConnection {
    const connection = new RpcConnection(`${carrier}-${this.nextId++}`, carrier, sink, this.runtime.dispatcher);
    this.connections.add(connection);
    // A client that connects (or reloads) while approvals wait gets them too.
    connection.onInitialized = () => this.runtime.approvals.resend((...args) => this.sendApproval(connection, ...args));
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
    this.removeRequester();
    this.removeApprovalSender();
  }
}
