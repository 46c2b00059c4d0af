import fs from 'node:fs';
import type { Readable } from 'node:stream';
import { Dispatcher, type HandlerLookup, type RequestMessage } from '../../shared/protocol/index.js';
import { plainRequestMessage } from '../../shared/protocol/plain-json.js';
import { lockHome } from '../host/lock-home.js';
import type { RequestContext } from '../runtime/context.js';
import type { HomeLock } from '../runtime/home-lock.js';
import { initializeHandler, resultsValidatedByDefault } from '../runtime/initialize-handler.js';

/**
 * What `wheelhouse app-server` did before loading the rest of itself: a client
 * spawns it and sends `initialize` at once, and waits for the answer before
 * anything else. Answering from here, with the home locked and one read of
 * stdin, spares that wait the loading of the carrier, the runtime's host and
 * the commands (docs/startup.md). Everything not answered here is
 * handed on untouched and handled exactly as if it had just been read.
 */
export interface FirstAnswer {
  /** The home's lock, taken before anything was answered; null when it could not be (the full start says why). */
  readonly lock: HomeLock | null;
  /** Bytes read from stdin and not answered here: the carrier takes them before anything it reads itself. */
  readonly preface: Buffer;
  /** The `initialize` request answered here: the carrier's connection takes it on as its handshake, writing nothing. */
  readonly initialize: RequestMessage | null;
}

/** A stop signal came before the client sent anything: the lock is released and nothing else was done. */
export const STOPPED_BEFORE_INPUT = 'stopped before input';

/** Where the client's input comes from and the answer goes (process.stdin and fd 1; streams in tests). */
export interface FirstAnswerIo {
  readonly stdin: Readable;
  readonly writeOut: (text: string) => void;
}

const NOTHING_READ: Omit<FirstAnswer, 'lock'> = { preface: Buffer.alloc(0), initialize: null };

/**
 * The first chunk the client sends (null: stdin ended or failed first), or the stop signal.
 * Stdin is left paused: the carrier resumes it, so nothing is read while no one listens.
 */
function firstChunk(stdin: Readable, stopSignal: Promise<void>): Promise<Buffer | null | typeof STOPPED_BEFORE_INPUT> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (value: Buffer | null | typeof STOPPED_BEFORE_INPUT) => {
      if (settled) return; // a signal long after the first input is the carrier's to handle
      settled = true;
      stdin.pause();
      stdin.off('data', onData).off('end', onEnd).off('error', onEnd);
      resolve(value);
    };
    const onData = (chunk: Buffer) => settle(chunk);
    const onEnd = () => settle(null);
    stdin.on('data', onData).once('end', onEnd).once('error', onEnd);
    void stopSignal.then(() => settle(STOPPED_BEFORE_INPUT));
  });
}

/** Writes all of `text` to stdout, as process.stdout would (a pipe that cannot take it yet is waited for). */
function writeStdout(text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  for (let written = 0; written < bytes.length; ) {
    try {
      written += fs.writeSync(1, bytes, written);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1); // a full pipe: its reader makes room
    }
  }
}

/**
 * Locks the home, reads what the client sent first and, if its first line is
 * an `initialize` request that succeeds, answers it on stdout. Answered with
 * the same handler and dispatcher as the carrier's, so the client sees the
 * same bytes; a bad or other first message is left to the carrier, which
 * gives it its usual answer or error.
 */
export async function answerFirstRequest(
  home: string,
  stopSignal: Promise<void>,
  io: FirstAnswerIo = { stdin: process.stdin, writeOut: writeStdout },
): Promise<FirstAnswer | typeof STOPPED_BEFORE_INPUT> {
  let lock: HomeLock;
  try {
    lock = lockHome(home);
  } catch {
    return { lock: null, ...NOTHING_READ }; // startRuntime tries again and reports why
  }
  const chunk = await firstChunk(io.stdin, stopSignal);
  if (chunk === STOPPED_BEFORE_INPUT) {
    lock.release();
    return STOPPED_BEFORE_INPUT;
  }
  if (chunk === null) return { lock, ...NOTHING_READ }; // stdin ended (or failed) before the client sent anything
  const unanswered: FirstAnswer = { lock, preface: chunk, initialize: null };
  const newline = chunk.indexOf(0x0a);
  if (newline < 0) return unanswered;
  let value: unknown;
  try {
    value = JSON.parse(chunk.subarray(0, newline).toString('utf8'));
  } catch {
    return unanswered;
  }
  const request = plainRequestMessage(value);
  if (request?.method !== 'initialize') return unanswered;
  const handlerOf = ((method: string) => (method === 'initialize' ? initializeHandler(home) : undefined)) as HandlerLookup<RequestContext>;
  const dispatcher = new Dispatcher<RequestContext>(handlerOf, { validateResults: resultsValidatedByDefault() });
  const session: RequestContext['session'] = { connectionId: 'first-answer', carrier: 'stdio', clientInfo: null, optOut: new Set() };
  const response = await dispatcher.dispatch(request, { session });
  if (!('result' in response)) return unanswered;
  io.writeOut(`${JSON.stringify(response)}\n`);
  return { lock, preface: chunk.subarray(newline + 1), initialize: request };
}
