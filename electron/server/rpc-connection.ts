import {
  ErrorCode,
  MAX_MESSAGE_BYTES,
  RpcError,
  type Dispatcher,
  type RequestMessage,
  type ResponseMessage,
  type ServerRequestMethod,
} from '../../shared/protocol/index.js';
import { plainRequestMessage } from '../../shared/protocol/plain-json.js';
import type { ConnectionSession, RequestContext } from '../runtime/context.js';
import type { ClientConnection, OutgoingRequest } from '../runtime/outgoing/outgoing-sender.js';

let wire: typeof import('../../shared/protocol/wire.js') | null = null;
let wireLoading: Promise<typeof import('../../shared/protocol/wire.js')> | null = null;
const loadWire = () => (wireLoading ??= import('../../shared/protocol/wire.js').then((module) => (wire = module)));

/** Where a connection writes its outgoing text (one JSON message per call). */
export interface ConnectionSink {
  /** `urgent` is true for responses (sent at once) and false for notifications (may be batched). */
  send(text: string, urgent: boolean): void;
  /**
   * The same for a message already encoded as UTF-8 (a terminal's output, built as bytes);
   * a carrier without it is sent the decoded text.
   */
  sendBytes?(bytes: Buffer, urgent: boolean): void;
  /**
   * Bytes written that the client has not taken yet (absent: the carrier
   * cannot tell). A carrier that has it calls `RpcConnection.drained()` when
   * that backlog empties, so command output can wait for a slow client.
   */
  unsentBytes?(): number;
  /**
   * Ends the carrier because its client fell behind further than the event
   * log reaches; the client reconnects, replays and is told `reset`. A carrier
   * with it is served from the log when its client reads slowly.
   */
  endBehindPrunedLog?(reason: string): void;
}

/**
 * One client's protocol session on any carrier: parses and bounds incoming
 * text, enforces the initialize handshake, dispatches requests and writes the
 * responses. Bad input gets a typed error and never reaches a handler.
 * Server requests and their answers belong to the OutgoingSender: this only
 * writes them and hands the answers back (`onResponse`).
 */
export class RpcConnection implements ClientConnection {
  readonly session: ConnectionSession;
  private initialized = false;
  /** Set while initialize runs, so requests pipelined behind it wait instead of failing. */
  private initializing: Promise<unknown> | null = null;
  private closed = false;
  private drainWaiters: (() => void)[] = [];
  /** Set when the carrier can end the connection for a pruned position (then it is paced from the log). */
  readonly endBehindPrunedLog?: (reason: string) => void;
  /** Called once the handshake succeeded (the host registers it with the sender, which replays what waits for an answer). */
  onInitialized: (() => void) | null = null;
  /** Where the client's answers to server requests go (the OutgoingSender). */
  onResponse: ((response: ResponseMessage) => void) | null = null;

  constructor(
    id: string,
    carrier: ConnectionSession['carrier'],
    private readonly sink: ConnectionSink,
    private readonly dispatcher: Dispatcher<RequestContext>,
  ) {
    this.session = { connectionId: id, carrier, clientInfo: null, optOut: new Set() };
    const end = sink.endBehindPrunedLog;
    if (end) this.endBehindPrunedLog = (reason) => {
      if (!this.closed) end(reason);
    };
  }

  get connectionId(): string {
    return this.session.connectionId;
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  get isInitialized(): boolean {
    return this.initialized;
  }

  /** What the carrier holds for this client that it has not taken yet (0 once closed, or when the carrier cannot tell). */
  get unsentBytes(): number {
    return this.closed ? 0 : (this.sink.unsentBytes?.() ?? 0);
  }

  /** Calls back once the carrier has drained its backlog, or the connection closed. */
  onceDrained(callback: () => void): void {
    if (this.closed) callback();
    else this.drainWaiters.push(callback);
  }

  /** The carrier reports that what it held has been taken by the client. */
  drained(): void {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const waiter of waiters) waiter();
  }

  /** Handles one incoming message; resolves once its response (if any) was written. */
  async receive(text: string): Promise<void> {
    if (this.closed) return;
    if (text.length > MAX_MESSAGE_BYTES || Buffer.byteLength(text, 'utf8') > MAX_MESSAGE_BYTES) {
      this.reply({
        id: null,
        error: { code: ErrorCode.InvalidRequest, message: `message exceeds ${MAX_MESSAGE_BYTES} bytes` },
      });
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      this.reply({
        id: null,
        error: {
          code: ErrorCode.ParseError,
          message: `parse error: ${error instanceof Error ? error.message : 'malformed JSON'}`,
        },
      });
      return;
    }
    // A request as clients send it is recognised without zod (the first one is answered before zod loads);
    // anything else is classified by the wire's schemas, loaded once and kept (so later messages keep their order).
    const plain = plainRequestMessage(value);
    if (plain && wireLoading && !wire) await wireLoading; // behind a message still waiting for them
    const message = plain ? ({ kind: 'request', message: plain } as const) : (wire ?? (await loadWire())).classifyMessage(value);
    if (!message) {
      this.reply({ id: idOf(value), error: RpcError.invalidRequest(describeInvalid(value)).toJSON() });
      return;
    }
    if (message.kind === 'response') {
      if (this.initialized) this.onResponse?.(message.message);
      return;
    }
    if (message.kind !== 'request') return; // client notifications (e.g. `initialized`)
    const request = message.message;
    if (this.initializing && request.method !== 'initialize') await this.initializing;
    if (request.method === 'initialize' && (this.initialized || this.initializing)) {
      this.reply({ id: request.id, error: RpcError.invalidRequest('already initialized').toJSON() });
      return;
    }
    if (request.method !== 'initialize' && !this.initialized) {
      this.reply({
        id: request.id,
        error: RpcError.invalidRequest('not initialized: send initialize first').toJSON(),
      });
      return;
    }
    const pending = this.dispatcher.dispatch(request, { session: this.session });
    if (request.method === 'initialize') {
      this.initializing = pending;
      const response = await pending;
      this.initialized = 'result' in response;
      this.initializing = null;
      this.reply(response);
      if (this.initialized) this.onInitialized?.();
      return;
    }
    this.reply(await pending);
  }

  /**
   * Takes on as this connection's handshake an `initialize` answered before the connection
   * existed (`app-server` answers its client's first request early: first-answer.ts). The handler
   * runs again for this session, so it knows the client and its opt-outs; nothing is written.
   * Requests after it wait for it, as behind an `initialize` being answered.
   */
  adoptInitialize(request: RequestMessage): Promise<void> {
    const pending = this.dispatcher.dispatch(request, { session: this.session });
    this.initializing = pending;
    return pending.then(() => {
      // The client was told it is initialised: the same handler gave a result then, and is pure.
      this.initialized = true;
      this.initializing = null;
      this.onInitialized?.();
    });
  }

  /** Writes an already-serialised notification (text, or its UTF-8 bytes) unless this client opted out of it. */
  sendNotification(method: string, text: string | Buffer): void {
    if (this.closed || !this.initialized || this.session.optOut.has(method)) return;
    this.write(text, false);
  }

  /** Any server request once the handshake is done: a client without a handler answers -32601, which counts as a refusal. */
  canAnswer(_method: ServerRequestMethod): boolean {
    return !this.closed && this.initialized;
  }

  sendRequest(_request: OutgoingRequest, text: string): void {
    if (!this.closed) this.write(text, true);
  }

  /** Stops all further writes; in-flight requests finish but their replies are dropped. */
  close(): void {
    this.closed = true;
    // Nothing more will be taken from a closed connection: what waited for it goes on.
    this.drained();
  }

  private reply(response: ResponseMessage): void {
    if (!this.closed) this.write(JSON.stringify(response), true);
  }

  private write(text: string | Buffer, urgent: boolean): void {
    try {
      if (typeof text === 'string') this.sink.send(text, urgent);
      else if (this.sink.sendBytes) this.sink.sendBytes(text, urgent);
      else this.sink.send(text.toString('utf8'), urgent);
    } catch {
      this.closed = true; // the carrier is gone; the host notices and cleans up
      this.drained();
    }
  }
}

function idOf(value: unknown): string | number | null {
  if (typeof value === 'object' && value !== null && 'id' in value) {
    const id = (value as { id: unknown }).id;
    if (typeof id === 'string' || typeof id === 'number') return id;
  }
  return null;
}

function describeInvalid(value: unknown): string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return 'invalid request: expected a JSON object';
  }
  const record = value as Record<string, unknown>;
  if ('method' in record && typeof record['method'] !== 'string') return 'invalid request: method must be a string';
  if ('id' in record && typeof record['id'] !== 'string' && typeof record['id'] !== 'number') {
    return 'invalid request: id must be a string or an integer';
  }
  return 'invalid request: expected {id, method, params}';
}
