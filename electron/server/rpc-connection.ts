import {
  classifyMessage,
  ErrorCode,
  MAX_MESSAGE_BYTES,
  RpcError,
  type Dispatcher,
  type ResponseMessage,
} from '../../shared/protocol/index.js';
import type { ConnectionSession, RequestContext } from '../runtime/context.js';

/** Where a connection writes its outgoing text (one JSON message per call). */
export interface ConnectionSink {
  /** `urgent` is true for responses (sent at once) and false for notifications (may be batched). */
  send(text: string, urgent: boolean): void;
}

/**
 * One client's protocol session on any carrier: parses and bounds incoming
 * text, enforces the initialize handshake, dispatches requests and writes the
 * responses. Bad input gets a typed error and never reaches a handler.
 */
export class RpcConnection {
  readonly session: ConnectionSession;
  private initialized = false;
  /** Set while initialize runs, so requests pipelined behind it wait instead of failing. */
  private initializing: Promise<unknown> | null = null;
  private closed = false;

  constructor(
    id: string,
    carrier: ConnectionSession['carrier'],
    private readonly sink: ConnectionSink,
    private readonly dispatcher: Dispatcher<RequestContext>,
  ) {
    this.session = { connectionId: id, carrier, clientInfo: null, optOut: new Set() };
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  get isInitialized(): boolean {
    return this.initialized;
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
    const message = classifyMessage(value);
    if (!message) {
      this.reply({ id: idOf(value), error: RpcError.invalidRequest(describeInvalid(value)).toJSON() });
      return;
    }
    if (message.kind !== 'request') return; // client notifications (e.g. `initialized`) and stray responses
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
      return;
    }
    this.reply(await pending);
  }

  /** Writes an already-serialised notification unless this client opted out of it. */
  sendNotification(method: string, text: string): void {
    if (this.closed || !this.initialized || this.session.optOut.has(method)) return;
    this.write(text, false);
  }

  /** Stops all further writes; in-flight requests finish but their replies are dropped. */
  close(): void {
    this.closed = true;
  }

  private reply(response: ResponseMessage): void {
    if (!this.closed) this.write(JSON.stringify(response), true);
  }

  private write(text: string, urgent: boolean): void {
    try {
      this.sink.send(text, urgent);
    } catch {
      this.closed = true; // the carrier is gone; the host notices and cleans up
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
