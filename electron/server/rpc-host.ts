import type { Dispatcher, NotificationMethod, NotificationParamsOf } from '../../shared/protocol/index.js';
import type { ElicitationSender } from '../mcp/elicitation-broker.js';
import type { ApprovalSender } from '../runtime/approvals/approval-broker.js';
import type { ConnectionSession, RequestContext } from '../runtime/context.js';
import type { NotificationListener } from '../runtime/event-log.js';
import type { ConnectionReach } from '../runtime/command-exec/command-exec-service.js';
import type { ClientToolRequester } from '../runtime/tools/client-tools.js';
import { RpcConnection, type ConnectionSink } from './rpc-connection.js';

/** An approval waits for the person as long as it takes (setTimeout's longest delay). */
const APPROVAL_WAIT_MS = 0x7fffffff;

/** The broker times elicitations out itself; a connection's own timer must not fire first. */
const ELICITATION_WAIT_MS = 0x7fffffff;

/** What connections dispatch into: a Runtime, or one still opening its stores (electron/host/start-runtime.ts). */
export interface RpcHostTarget {
  readonly dispatcher: Dispatcher<RequestContext>;
  readonly events: { subscribe(listener: NotificationListener): () => void };
  readonly clientTools: { addRequester(requester: ClientToolRequester): () => void };
  readonly elicitations: { addSender(sender: ElicitationSender): () => void; resend(sender: ElicitationSender): void };
  readonly commandExec: { addReach(reach: ConnectionReach): () => void; connectionClosed(connectionId: string): Promise<void> };
  readonly approvals: { addSender(sender: ApprovalSender): () => void; resend(sender: ApprovalSender): void };
}

/**
 * Attaches client connections of every carrier to one runtime and fans each
 * notification out to all of them, serialising it once.
 */
export class RpcHost<Target extends RpcHostTarget = RpcHostTarget> {
  private readonly connections = new Set<RpcConnection>();
  private readonly unsubscribe: () => void;
  private readonly removeRequester: () => void;
  private readonly removeExecReach: () => void;
  private readonly removeApprovalSender: () => void;
  private readonly removeElicitationSender: () => void;
  private nextId = 1;

  constructor(readonly runtime: Target) {
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
    // MCP elicitations go to every connected client; the first answer wins.
    this.removeElicitationSender = runtime.elicitations.addSender((...args) => {
      let reached = 0;
      for (const connection of this.connections) reached += this.sendElicitation(connection, ...args);
      return reached;
    });
    // command/exec output is connection-scoped: only the connection that started the command gets it.
    this.removeExecReach = runtime.commandExec.addReach({
      isOpen: (connectionId) => this.find(connectionId) !== undefined,
      notify: (connectionId, method, params) => {
        const connection = this.find(connectionId);
        connection?.sendNotification(method, JSON.stringify({ method, params }));
        return connection !== undefined && connection.isOpen;
      },
      backlog: {
        unsentBytes: (connectionId) => this.mostBehind(connectionId)?.unsentBytes ?? 0,
        onceDrained: (connectionId, callback) => {
          const connection = this.mostBehind(connectionId);
          if (connection) connection.onceDrained(callback);
          else callback();
        },
      },
    });
  }

  /** The open connection (that one, or any with null) whose carrier holds the most unsent output. */
  private mostBehind(connectionId: string | null): RpcConnection | undefined {
    if (connectionId !== null) return this.find(connectionId);
    let behind: RpcConnection | undefined;
    for (const connection of this.connections) {
      if (connection.isOpen && (behind === undefined || connection.unsentBytes > behind.unsentBytes)) behind = connection;
    }
    return behind;
  }

  private find(connectionId: string): RpcConnection | undefined {
    for (const connection of this.connections) if (connection.session.connectionId === connectionId && connection.isOpen) return connection;
    return undefined;
  }

  private sendApproval(connection: RpcConnection, ...[pending, signal, answer]: Parameters<ApprovalSender>): void {
    if (!connection.isOpen || !connection.isInitialized) return;
    const options = { timeoutMs: APPROVAL_WAIT_MS, signal, id: pending.requestId };
    const asked =
      pending.method === 'mcpServer/elicitation/request'
        ? connection.request(pending.method, pending.params, options)
        : connection.request(pending.method, pending.params, options);
    asked
      .then(answer)
      // Withdrawn (answered elsewhere, turn stopped), refused or disconnected: others may still answer.
      .catch(() => undefined);
  }

  private sendElicitation(connection: RpcConnection, ...[requestId, params, signal, answer]: Parameters<ElicitationSender>): number {
    if (!connection.isOpen || !connection.isInitialized) return 0;
    connection
      .request('mcpServer/elicitation/request', params, { timeoutMs: ELICITATION_WAIT_MS, signal, id: requestId })
      .then(answer)
      // Withdrawn (answered elsewhere, timed out), refused or disconnected: the others may still answer.
      .catch(() => undefined);
    return 1;
  }

  /** The most output any connection's carrier holds unsent (what a slow client costs this process). */
  get largestBacklogBytes(): number {
    return this.mostBehind(null)?.unsentBytes ?? 0;
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
    const text = JSON.stringify({ method, params });
    let reached = 0;
    for (const connection of this.connections) {
      if (!connection.isOpen || !connection.isInitialized) continue;
      connection.sendNotification(method, text);
      reached += 1;
    }
    return reached;
  }

  connect(carrier: ConnectionSession['carrier'], sink: ConnectionSink): RpcConnection {
    const connection = new RpcConnection(`${carrier}-${this.nextId++}`, carrier, sink, this.runtime.dispatcher);
    this.connections.add(connection);
    // A client that connects (or reloads) while approvals or a server's question wait gets them too.
    connection.onInitialized = () => {
      this.runtime.approvals.resend((...args) => this.sendApproval(connection, ...args));
      this.runtime.elicitations.resend((...args) => this.sendElicitation(connection, ...args));
    };
    return connection;
  }

  disconnect(connection: RpcConnection): void {
    connection.close();
    this.connections.delete(connection);
    void this.runtime.commandExec.connectionClosed(connection.session.connectionId);
  }

  close(): void {
    for (const connection of this.connections) {
      connection.close();
      void this.runtime.commandExec.connectionClosed(connection.session.connectionId);
    }
    this.connections.clear();
    this.unsubscribe();
    this.removeRequester();
    this.removeExecReach();
    this.removeApprovalSender();
    this.removeElicitationSender();
  }
}
