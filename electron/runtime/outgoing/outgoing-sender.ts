import {
  builtTables,
  describeIssues,
  loadTables,
  ServerRequestError,
  type AnyNotification,
  type NotificationMethod,
  type NotificationParamsOf,
  type ResponseMessage,
  type ServerRequestMethod,
  type ServerRequestParamsOf,
  type ServerRequestResultOf,
} from '../../../shared/protocol/index.js';
import type { ClientBacklogSource } from '../terminal/client-pacing.js';
import { commandOutputDeltaBytes, type CommandOutputChunk } from '../terminal/command-output-text.js';
import { DEFAULT_PACING, LogPacedDelivery, type EventSource, type PacingOptions } from './log-paced-delivery.js';

/**
 * One client connection as a carrier registers it (after `initialize`): how
 * to write to it and what it can answer. Carriers only transport; every
 * table of what waits for whom lives in the OutgoingSender.
 */
export interface ClientConnection {
  readonly connectionId: string;
  readonly isOpen: boolean;
  /** Whether this client can be asked `method` (a carrier without server requests, or a client that cannot answer one, says no). */
  canAnswer(method: ServerRequestMethod): boolean;
  /** Writes one server request (already serialised; the same text for every client it goes to). */
  sendRequest(request: OutgoingRequest, text: string): void;
  /** Writes one serialised notification (text, or its UTF-8 bytes), unless the client opted out of `method`. */
  sendNotification(method: string, text: string | Buffer): void;
  /** What the carrier holds for this client that it has not taken yet (0 when it cannot tell). */
  readonly unsentBytes: number;
  /** Calls back once the carrier drained its backlog, or the connection closed. */
  onceDrained(callback: () => void): void;
  /**
   * Ends a connection that fell behind further than the log reaches (it
   * reconnects and is told `reset`). A carrier that has it is paced from the
   * log when its client reads slowly (LogPacedDelivery); one without gets every event live.
   */
  endBehindPrunedLog?(reason: string): void;
}

/** A server request as it goes out: the JSON-RPC `{id, method, params}`. */
export interface OutgoingRequest {
  readonly id: string;
  readonly method: ServerRequestMethod;
  readonly params: unknown;
}

/**
 * Who may answer: every connected client that can (approvals, elicitations:
 * the first answer wins), or one connection (a client-side tool call goes to
 * the client that registered the tool).
 */
export type Audience = { readonly kind: 'every' } | { readonly kind: 'one'; readonly connectionId: string };

export interface ServerRequestOptions {
  /** Stable id (approvals are durable: `approval-<item id>`); default `s<n>`. */
  readonly requestId?: string;
  /** The thread it belongs to: `cancelThread` withdraws it; null for none. */
  readonly threadId: string | null;
  /** The turn it belongs to: withdrawn when that turn completes. */
  readonly turnId?: string | null;
  readonly audience: Audience;
  /** Aborting withdraws the request (`canceled`): answered elsewhere, turn stopped, the server gave up. */
  readonly signal?: AbortSignal;
  /** Fails with `timeout` when nobody answered within this; default: waits as long as it takes. */
  readonly timeoutMs?: number;
  /**
   * With audience `every` and nobody able to answer right now: `wait` (the
   * request is replayed to the next client that connects: approvals) or
   * `fail` (`closed` at once: an MCP server's question). A request for one
   * connection always fails at once when that connection is not here.
   */
  readonly nobodyHere?: 'wait' | 'fail';
  /**
   * Checks a schema-valid answer further (an elicitation's form content); a
   * problem refuses that answer and the request keeps waiting for another.
   */
  readonly check?: (result: unknown) => Promise<string | null> | string | null;
}

/** What became of an answer a client sent: taken, or why not (the request keeps waiting unless `ended`). */
export type AnswerOutcome =
  | { readonly kind: 'taken' }
  | { readonly kind: 'notWaiting'; readonly error: ServerRequestError }
  | { readonly kind: 'refused'; readonly error: ServerRequestError };

interface PendingRequest {
  readonly request: OutgoingRequest;
  readonly text: string;
  readonly threadId: string | null;
  readonly turnId: string | null;
  readonly audience: Audience;
  readonly check: ServerRequestOptions['check'];
  /** Connections it was sent to: only they may answer it. */
  readonly sentTo: Set<string>;
  settle(outcome: { readonly result: unknown } | { readonly error: ServerRequestError }): void;
}

/** How many ended requests are remembered, so a late answer is told how its request ended. */
const REMEMBERED_ENDINGS = 10_000;

/**
 * Every message the server sends on its own to clients, on every carrier:
 * notifications (to all, or one connection's), and server requests with the
 * table of those still waiting (Codex's OutgoingMessageSender and its
 * pending-request callbacks). A request is replayed to a client that connects
 * (or reconnects) while it waits and can answer it; the first answer wins and
 * a later one is told `notWaiting`; a thread's waiting requests are withdrawn
 * together when it is archived or its turn completes.
 */
export class OutgoingSender {
  private readonly connections = new Map<string, ClientConnection>();
  private readonly pending = new Map<string, PendingRequest>();
  private readonly endings = new Map<string, string>();
  private readonly closedListeners = new Set<(connectionId: string) => void>();
  /** Each connection's cursor on the log, once the sender follows one. */
  private readonly deliveries = new Map<string, LogPacedDelivery>();
  private events: EventSource | null = null;
  private nextId = 1;
  private nextConnection = 1;

  /**
   * `now` stamps the notifications sent here (not logged ones) with Codex's `emittedAtMs`;
   * `pacing` is when and how a slow client is served from the log.
   */
  constructor(
    private readonly now: () => number = Date.now,
    private readonly pacing: PacingOptions = DEFAULT_PACING,
  ) {}

  /** A connection id no other connection of any carrier has (`<carrier>-<n>`). */
  newConnectionId(carrier: string): string {
    return `${carrier}-${this.nextConnection++}`;
  }

  /** Registers an initialised connection and replays to it every waiting request it can answer. Returns its removal. */
  attach(connection: ClientConnection): () => void {
    this.connections.set(connection.connectionId, connection);
    if (this.events) this.deliveries.set(connection.connectionId, new LogPacedDelivery(connection, this.events, this.pacing));
    for (const pending of this.pending.values()) this.offer(pending, connection);
    return () => this.detach(connection);
  }

  /** Calls back with the id of every connection that goes away (its terminals die with it). Returns the removal. */
  onConnectionClosed(listener: (connectionId: string) => void): () => void {
    this.closedListeners.add(listener);
    return () => this.closedListeners.delete(listener);
  }

  /**
   * Fans out every notification the event log announces (runtime events),
   * serialised once; a client that reads slowly is served from the log at
   * its pace (LogPacedDelivery). Follow before connections attach. Returns the unsubscribe.
   */
  follow(events: EventSource): () => void {
    this.events = events;
    return events.subscribe((notification, text, logged) => {
      for (const connection of this.connections.values()) {
        const delivery = this.deliveries.get(connection.connectionId);
        if (delivery) delivery.deliver(notification, text, logged);
        else connection.sendNotification(notification.method, text);
      }
      this.withdrawEnded(notification);
    });
  }

  /**
   * A notification of the host itself (no `seq`, never in the log): the
   * desktop shell says so that its runtime failed. Returns how many
   * connections it reached.
   */
  broadcast<N extends NotificationMethod>(method: N, params: NotificationParamsOf<N>): number {
    const text = JSON.stringify({ method, params, emittedAtMs: this.now() });
    let reached = 0;
    for (const connection of this.connections.values()) {
      if (!connection.isOpen) continue;
      connection.sendNotification(method, text);
      reached += 1;
    }
    return reached;
  }

  /** A terminal's output (`command/exec/outputDelta`), for its one connection only; false when it is not connected. */
  notifyCommandOutput(connectionId: string, chunk: CommandOutputChunk): boolean {
    const connection = this.open(connectionId);
    if (!connection) return false;
    connection.sendNotification('command/exec/outputDelta', commandOutputDeltaBytes(chunk, this.now()));
    return connection.isOpen;
  }

  isConnected(connectionId: string): boolean {
    return this.open(connectionId) !== undefined;
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  /** Whether a request for `audience` would reach anyone now. */
  canReach(method: ServerRequestMethod, audience: Audience): boolean {
    return [...this.connections.values()].some((connection) => this.mayAsk(connection, method, audience));
  }

  /**
   * Sends a request and resolves with the first usable answer. Fails with a
   * ServerRequestError: `canceled` (the signal aborted, or its thread's
   * requests were withdrawn), `timeout`, `closed` (nobody to ask, or the one
   * connection it went to closed), `refused`/`badAnswer` (the one connection
   * it went to answered with an error or outside the schema; with audience
   * `every` such an answer is refused and the others may still answer).
   */
  request<M extends ServerRequestMethod>(method: M, params: ServerRequestParamsOf<M>, options: ServerRequestOptions): Promise<ServerRequestResultOf<M>> {
    const id = options.requestId ?? `s${this.nextId++}`;
    if (this.pending.has(id)) return Promise.reject(new ServerRequestError('closed', `${method}: request ${id} is already waiting`));
    const request: OutgoingRequest = { id, method, params };
    return new Promise<ServerRequestResultOf<M>>((resolve, reject) => {
      const onAbort = () => finish({ error: new ServerRequestError('canceled', `${method} was canceled`) }, 'canceled');
      const timer =
        options.timeoutMs === undefined
          ? null
          : setTimeout(
              () => finish({ error: new ServerRequestError('timeout', `${method}: the client did not answer within ${options.timeoutMs} ms`) }, 'timeout'),
              options.timeoutMs,
            );
      const finish = (outcome: { result: unknown } | { error: ServerRequestError }, ending: string) => {
        if (this.pending.get(id) !== entry) return;
        this.pending.delete(id);
        this.remember(id, ending);
        if (timer) clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        if ('error' in outcome) reject(outcome.error);
        else resolve(outcome.result as ServerRequestResultOf<M>);
      };
      const entry: PendingRequest = {
        request,
        text: JSON.stringify(request),
        threadId: options.threadId,
        turnId: options.turnId ?? null,
        audience: options.audience,
        check: options.check,
        sentTo: new Set(),
        settle: (outcome) => finish(outcome, 'error' in outcome ? outcome.error.reason : 'answered'),
      };
      this.pending.set(id, entry);
      this.endings.delete(id);
      if (options.signal?.aborted) return onAbort();
      options.signal?.addEventListener('abort', onAbort, { once: true });
      for (const connection of this.connections.values()) this.offer(entry, connection);
      if (entry.sentTo.size === 0 && (options.audience.kind === 'one' || options.nobodyHere === 'fail')) {
        finish({ error: new ServerRequestError('closed', `${method}: no connected client can answer it`) }, 'closed');
      }
    });
  }

  /**
   * A client's answer to a server request (a JSON-RPC response), handed back
   * by its carrier. The first usable answer wins; one for a request no longer
   * waiting (answered elsewhere, withdrawn) is `notWaiting`.
   */
  answer(connectionId: string, response: ResponseMessage): AnswerOutcome | Promise<AnswerOutcome> {
    const id = typeof response.id === 'string' ? response.id : String(response.id);
    const entry = this.pending.get(id);
    if (!entry || !entry.sentTo.has(connectionId)) {
      const ended = this.endings.get(id);
      return notWaiting(new ServerRequestError('notWaiting', `request ${id} is not waiting${ended ? ` (it was ${ended})` : ''}: ${ended ? 'the first answer won or it was withdrawn' : 'it was never sent to this client'}`));
    }
    const { method } = entry.request;
    const refuse = (error: ServerRequestError): AnswerOutcome => {
      // The one client asked has answered: nobody else can.
      if (entry.audience.kind === 'one') entry.settle({ error });
      return { kind: 'refused', error };
    };
    if ('error' in response) return refuse(new ServerRequestError('refused', `${method}: the client refused: ${response.error.message}`, response.error));
    // Built already whenever the runtime has sent a request; waited for only if it has not.
    const tables = builtTables();
    if (!tables) return loadTables().then(() => this.answer(connectionId, response));
    const checked = tables.serverRequests[method].result.safeParse(response.result);
    if (!checked.success) return refuse(new ServerRequestError('badAnswer', `${method}: bad answer: ${describeIssues(checked.error)}`));
    if (!entry.check) return this.take(entry, checked.data);
    return Promise.resolve(entry.check(checked.data)).then((problem) => {
      if (problem) return refuse(new ServerRequestError('badAnswer', `${method}: answer refused: ${problem}`));
      return this.take(entry, checked.data);
    });
  }

  /** Withdraws every request of a thread still waiting (`canceled`); returns how many. */
  cancelThread(threadId: string, turnId: string | null = null): number {
    let canceled = 0;
    for (const entry of [...this.pending.values()]) {
      if (entry.threadId !== threadId || (turnId !== null && entry.turnId !== turnId)) continue;
      entry.settle({ error: new ServerRequestError('canceled', `${entry.request.method} was withdrawn: its ${turnId === null ? 'thread closed' : 'turn ended'}`) });
      canceled += 1;
    }
    return canceled;
  }

  isWaiting(requestId: string): boolean {
    return this.pending.has(requestId);
  }

  /** How a request that is no longer waiting ended (`answered`, `canceled`, `timeout`, …), while remembered. */
  endingOf(requestId: string): string | null {
    return this.endings.get(requestId) ?? null;
  }

  /** Requests still waiting for an answer, oldest first. */
  waiting(): Array<{ readonly request: OutgoingRequest; readonly threadId: string | null; readonly sentTo: readonly string[] }> {
    return [...this.pending.values()].map((entry) => ({ request: entry.request, threadId: entry.threadId, sentTo: [...entry.sentTo] }));
  }

  /** How far the connections' carriers lag, for output that waits for a slow client. */
  readonly backlog: ClientBacklogSource = {
    unsentBytes: (connectionId) => this.mostBehind(connectionId)?.unsentBytes ?? 0,
    onceDrained: (connectionId, callback) => {
      const connection = this.mostBehind(connectionId);
      if (connection) connection.onceDrained(callback);
      else callback();
    },
  };

  private take(entry: PendingRequest, result: unknown): AnswerOutcome {
    if (this.pending.get(entry.request.id) !== entry) {
      return notWaiting(new ServerRequestError('notWaiting', `request ${entry.request.id} is not waiting: another answer came first`));
    }
    entry.settle({ result });
    return { kind: 'taken' };
  }

  private offer(entry: PendingRequest, connection: ClientConnection): void {
    if (entry.sentTo.has(connection.connectionId) || !this.mayAsk(connection, entry.request.method, entry.audience)) return;
    entry.sentTo.add(connection.connectionId);
    connection.sendRequest(entry.request, entry.text);
  }

  private mayAsk(connection: ClientConnection, method: ServerRequestMethod, audience: Audience): boolean {
    if (!connection.isOpen || !connection.canAnswer(method)) return false;
    return audience.kind === 'every' || audience.connectionId === connection.connectionId;
  }

  private detach(connection: ClientConnection): void {
    if (this.connections.get(connection.connectionId) !== connection) return;
    this.connections.delete(connection.connectionId);
    this.deliveries.get(connection.connectionId)?.end();
    this.deliveries.delete(connection.connectionId);
    this.hungUp(connection.connectionId);
  }

  /**
   * The client will send nothing more (stdin ended) though its answers may
   * still be written: what only it could answer fails now, and what dies with
   * its connection (its terminals) dies now.
   */
  hungUp(connectionId: string): void {
    for (const entry of [...this.pending.values()]) {
      if (!entry.sentTo.delete(connectionId)) continue;
      // Its only client is gone; a request to every client waits for the next one.
      if (entry.audience.kind === 'one') entry.settle({ error: new ServerRequestError('closed', `${entry.request.method}: the client connection closed`) });
    }
    for (const listener of this.closedListeners) listener(connectionId);
  }

  /** A completed turn or an archived thread cannot be waiting for anything any more. */
  private withdrawEnded(notification: AnyNotification): void {
    if (this.pending.size === 0) return;
    if (notification.method === 'turn/completed') this.cancelThread(notification.params.threadId, notification.params.turn.id);
    else if (notification.method === 'thread/archived') this.cancelThread(notification.params.threadId);
  }

  private open(connectionId: string): ClientConnection | undefined {
    const connection = this.connections.get(connectionId);
    return connection?.isOpen ? connection : undefined;
  }

  /** The open connection (that one, or any with null) whose carrier holds the most unsent output. */
  private mostBehind(connectionId: string | null): ClientConnection | undefined {
    if (connectionId !== null) return this.open(connectionId);
    let behind: ClientConnection | undefined;
    for (const connection of this.connections.values()) {
      if (connection.isOpen && (behind === undefined || connection.unsentBytes > behind.unsentBytes)) behind = connection;
    }
    return behind;
  }

  private remember(id: string, ending: string): void {
    this.endings.set(id, ending);
    if (this.endings.size > REMEMBERED_ENDINGS) {
      const oldest = this.endings.keys().next().value;
      if (oldest !== undefined) this.endings.delete(oldest);
    }
  }
}

function notWaiting(error: ServerRequestError): AnswerOutcome {
  return { kind: 'notWaiting', error };
}
