import type { Readable, Writable } from 'node:stream';
import { ErrorCode, MAX_MESSAGE_BYTES, type RequestMessage } from '../../shared/protocol/index.js';
import type { RpcHost } from './rpc-host.js';
import { heldAsBytes, WriteBatcher } from './write-batcher.js';

/** Unsent output that drops the client, as on the WebSocket carrier. */
export const DEFAULT_MAX_UNSENT_BYTES = 64 * 1024 * 1024;

/**
 * Requests of one client being handled at once. Reading stops at this many,
 * so a pipelining client cannot make the host answer thousands of requests
 * before it notices that the client is not reading the answers.
 */
export const MAX_INFLIGHT_REQUESTS = 32;

const NEWLINE = Buffer.from('\n');

export interface StdioOptions {
  /**
   * Output the client has not read yet that ends the connection. Above an
   * eighth of it, input is paused until the output drains, so a client that
   * sends requests without reading answers is slowed, not dropped; only output
   * the runtime produces on its own (streamed turns) can reach the limit.
   */
  readonly maxUnsentBytes?: number;
  /** Input already read from the client (by first-answer.ts), taken before anything read from `input`. */
  readonly preface?: Buffer;
  /** An `initialize` already answered (by first-answer.ts): the connection's handshake, taken on without a reply. */
  readonly answeredInitialize?: RequestMessage;
}

/** How the connection ended: the input closed, or the client was dropped (with why). */
export type StdioEnd = { readonly dropped: false } | { readonly dropped: true; readonly reason: string };

/**
 * Newline-delimited JSON over a pair of streams (`wheelhouse app-server`).
 * A line longer than the cap is discarded as it streams in, never buffered.
 * Resolves when the input ends and every request read has answered, or at
 * once when the client is dropped for not reading.
 */
export function serveStdio(host: RpcHost, input: Readable, output: Writable, options: StdioOptions = {}): Promise<StdioEnd> {
  const maxUnsent = options.maxUnsentBytes ?? DEFAULT_MAX_UNSENT_BYTES;
  const pauseAbove = Math.floor(maxUnsent / 8);
  const batcher = new WriteBatcher(output);
  const inflight = new Set<Promise<void>>();
  /** Complete lines read but not yet handed to the connection (at most one chunk's worth). */
  const lines: string[] = [];
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let discarding = false;
  let waitingForDrain = false;
  let inputEnded = false;
  let ended: StdioEnd | null = null;
  let resolveEnd: (end: StdioEnd) => void = () => undefined;

  const end = (how: StdioEnd) => {
    if (ended !== null) return;
    ended = how;
    input.pause();
    batcher.dispose();
    host.disconnect(connection);
    resolveEnd(how);
  };

  /** Writes one message and its newline (`text` may be its UTF-8 bytes). */
  const send = (text: string | Buffer, urgent: boolean) => {
    if (ended?.dropped) throw new Error(ended.reason);
    if (output.writableLength + text.length > maxUnsent) {
      const mib = (output.writableLength / (1024 * 1024)).toFixed(1);
      const reason = `the client stopped reading: ${mib} MiB of output unsent (limit ${Math.round(maxUnsent / (1024 * 1024))} MiB); disconnecting it`;
      end({ dropped: true, reason });
      throw new Error(reason);
    }
    batcher.beforeWrite(urgent);
    const data = heldAsBytes(text);
    if (typeof data === 'string') {
      output.write(`${data}\n`);
    } else {
      // Two writes, not a copy into a longer buffer: a notification is corked, so they leave as one writev.
      output.write(data);
      output.write(NEWLINE);
    }
    if (!waitingForDrain && output.writableLength > pauseAbove) {
      // Read nothing more until the client has read what it was sent.
      waitingForDrain = true;
      output.once('drain', () => {
        waitingForDrain = false;
        pump();
      });
      pump();
    }
  };
  const connection = host.connect('stdio', { send, sendBytes: send, unsentBytes: () => output.writableLength });
  // Output waiting for this client (a flooding command) goes on once it has read what it was sent.
  output.on('drain', () => connection.drained());

  /** Hands waiting lines to the connection while output and in-flight requests allow, and reads more only then. */
  const pump = () => {
    if (ended !== null) return;
    while (lines.length > 0 && !waitingForDrain && inflight.size < MAX_INFLIGHT_REQUESTS) {
      const line = lines.shift() as string;
      const done = connection.receive(line).finally(() => {
        inflight.delete(done);
        pump();
      });
      inflight.add(done);
    }
    if (inputEnded) {
      if (lines.length === 0 && inflight.size === 0) end({ dropped: false });
      return;
    }
    if (lines.length === 0 && !waitingForDrain) input.resume();
    else input.pause();
  };

  const rejectOversized = () => {
    const message = `message exceeds ${MAX_MESSAGE_BYTES} bytes`;
    try {
      send(JSON.stringify({ id: null, error: { code: ErrorCode.InvalidRequest, message } }), true);
    } catch {
      // dropped: nobody is listening any more
    }
  };

  const takeLine = () => {
    if (!discarding && pendingBytes > 0) {
      const line = Buffer.concat(pending).toString('utf8');
      if (line.trim().length > 0) lines.push(line);
    }
    pending = [];
    pendingBytes = 0;
  };

  /** Splits what the client sent into lines (a line over the cap is answered with an error and dropped). */
  const onData = (chunk: Buffer) => {
    if (ended !== null) return;
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, start);
      const stop = newline === -1 ? chunk.length : newline;
      if (!discarding) {
        pending.push(chunk.subarray(start, stop));
        pendingBytes += stop - start;
        if (pendingBytes > MAX_MESSAGE_BYTES) {
          discarding = true;
          pending = [];
          pendingBytes = 0;
          rejectOversized();
        }
      }
      if (newline === -1) break;
      takeLine();
      discarding = false;
      start = newline + 1;
    }
    pump();
  };

  return new Promise<StdioEnd>((resolve) => {
    resolveEnd = resolve;
    if (options.answeredInitialize) {
      const adopted = connection.adoptInitialize(options.answeredInitialize).finally(() => {
        inflight.delete(adopted);
        pump();
      });
      inflight.add(adopted);
    }
    if (options.preface && options.preface.length > 0) onData(options.preface);
    input.on('data', onData);
    const finish = () => {
      if (inputEnded) return;
      inputEnded = true;
      takeLine();
      pump();
      // The client hung up: its command/exec terminals die now (their requests answer at exit, letting the carrier end).
      host.runtime.outgoing.hungUp(connection.connectionId);
    };
    input.on('end', finish);
    // A signal handler destroys stdin, which emits 'close' without 'end'.
    input.on('close', finish);
    input.on('error', () => end({ dropped: false }));
    // Input read before (first-answer.ts) may have ended it, or left it paused: take it from where it is.
    if (input.readableEnded || input.destroyed) finish();
    else pump();
  });
}
