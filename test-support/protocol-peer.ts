import {
  clientMethods,
  RpcError,
  type ClientMethod,
  type ParamsOf,
  type ResponseMessage,
  type ResultOf,
} from '../shared/protocol/index.js';
import type { RpcHost } from '../electron/server/rpc-host.js';
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

  /**
   * Sends a request by name without waiting for its answer; returns its id, for
   * `inbox.response(id)` when the answer matters (a terminal's exit, say).
   */
  send(method: string, params?: unknown): number {
    const id = this.nextId++;
    this.sink.send(JSON.stringify(params === undefined ? { id, method } : { id, method, params }));
    return id;
  }

  /** Sends a request by name (any name, any params) and returns the raw response. */
  async request(method: string, params?: unknown, timeoutMs?: number): Promise<ResponseMessage> {
    return this.inbox.response(this.send(method, params), timeoutMs);
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

/** A peer connected to `host` as an in-process carrier's client (the desktop window's), initialised as `name`. */
export async function inProcessPeer(host: RpcHost, name: string): Promise<ProtocolPeer> {
  const peer: ProtocolPeer = new ProtocolPeer({ send: (text) => void connection.receive(text) });
  const connection = host.connect('in-process', { send: (text) => peer.inbox.push(text) });
  await peer.initialize(name);
  return peer;
}
