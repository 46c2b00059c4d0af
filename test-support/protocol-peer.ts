import {
  clientMethods,
  RpcError,
  type ClientMethod,
  type ParamsOf,
  type ResponseMessage,
  type ResultOf,
} from '../shared/protocol/index.js';
import { MessageInbox } from './message-inbox.js';
import { wireTap } from './wire-conformance.js';

/** Where a peer writes one message of text (a stdio line, a WebSocket frame). */
export interface PeerSink {
  send(text: string): void;
}

/**
 * A protocol client for tests and benchmarks that also speaks raw text, so a
 * test can send malformed input and see exactly what came back.
 */
export class ProtocolPeer {
  readonly inbox: MessageInbox;
  private nextId = 1;
  private readonly sink: PeerSink;

  constructor(sink: PeerSink) {
    // Under the unit tests every message both ways is checked against Codex's schema.
    const tap = wireTap();
    this.sink = tap ? { send: (text) => (tap.sent(text), sink.send(text)) } : sink;
    this.inbox = new MessageInbox(tap ? (text) => tap.received(text) : undefined);
  }

  /** Sends text exactly as given. */
  sendRaw(text: string): void {
    this.sink.send(text);
  }

  /** Sends a request by name (any name, any params) and returns the raw response. */
  async request(method: string, params?: unknown, timeoutMs?: number): Promise<ResponseMessage> {
    const id = this.nextId++;
    this.sink.send(JSON.stringify(params === undefined ? { id, method } : { id, method, params }));
    return this.inbox.response(id, timeoutMs);
  }

  /** Calls a declared method; resolves with its schema-checked result or throws the RpcError. */
  async call<M extends ClientMethod>(method: M, params: ParamsOf<M>, timeoutMs?: number): Promise<ResultOf<M>> {
    const response = await this.request(method, params, timeoutMs);
    if ('error' in response) throw RpcError.fromShape(response.error);
    return clientMethods[method].result.parse(response.result) as ResultOf<M>;
  }

  /** The handshake every connection starts with. */
  initialize(name = 'wheelhouse-tests'): Promise<ResultOf<'initialize'>> {
    return this.call('initialize', { clientInfo: { name, version: '0.0.0' } });
  }
}
