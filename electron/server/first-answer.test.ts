import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../shared/protocol/index.js';
import { startAppServer } from '../../test-support/app-server-process.js';
import { killAllChildren } from '../../test-support/child-process.js';
import { TempDirs } from '../../test-support/temp-dir.js';
import { lockHome } from '../host/lock-home.js';
import { answerFirstRequest, STOPPED_BEFORE_INPUT, type FirstAnswer } from './first-answer.js';

/**
 * `app-server` answers the client's first `initialize` before it loads the rest of itself
 * (first-answer.ts). What it answers there must be what the carrier would answer, and
 * whatever it does not answer must reach the carrier untouched.
 */
const temp = new TempDirs();
const held: { release(): void }[] = [];
afterEach(async () => {
  for (const lock of held.splice(0)) lock.release();
  await killAllChildren();
  temp.cleanup();
});

const INITIALIZE = { id: 1, method: 'initialize', params: { clientInfo: { name: 'first', title: null, version: '1.2.3' } } };
const line = (message: unknown) => `${JSON.stringify(message)}\n`;

/** Runs answerFirstRequest on a stream the test writes to; returns what it answered on "stdout" and what it handed on. */
async function firstAnswerOf(chunks: readonly string[], home = temp.make('wheelhouse-first-')) {
  const stdin = new PassThrough();
  const written: string[] = [];
  for (const chunk of chunks) stdin.write(chunk);
  const result = await answerFirstRequest(home, new Promise(() => undefined), { stdin, writeOut: (text) => written.push(text) });
  if (result !== STOPPED_BEFORE_INPUT && result.lock) held.push(result.lock);
  return { result: result as FirstAnswer, written, stdin, home };
}

describe('answering the first request before the CLI loads', () => {
  it('answers an initialize line with the carrier\'s answer and hands on the rest of the chunk byte for byte', async () => {
    const rest = `${line({ id: 2, method: 'thread/list', params: {} })}{"id":3,"meth`;
    const { result, written, home } = await firstAnswerOf([line(INITIALIZE) + rest]);
    expect(written).toHaveLength(1);
    expect(JSON.parse(written[0]!)).toMatchObject({ id: 1, result: { codexHome: home, wheelhouseHome: home, codexProtocolVersion: '0.169.0' } });
    expect(written[0]!.endsWith('}\n')).toBe(true);
    expect(result.initialize).toEqual(INITIALIZE);
    expect(result.preface.toString('utf8')).toBe(rest);
    expect(fs.readFileSync(path.join(home, 'runtime.lock'), 'utf8')).toBe(String(process.pid));
  });

  it('answers nothing and hands everything on when the first line is incomplete, not initialize, or not JSON', async () => {
    for (const chunk of ['{"id":1,"method":"initialize","par', line({ id: 1, method: 'thread/list', params: {} }), 'not json\n', '\n']) {
      const { result, written } = await firstAnswerOf([chunk]);
      expect(written).toEqual([]);
      expect(result.initialize).toBeNull();
      expect(result.preface.toString('utf8')).toBe(chunk);
    }
  });

  it('leaves an initialize the schema refuses to the carrier, which gives the schema\'s error', async () => {
    const bad = line({ id: 1, method: 'initialize', params: { clientInfo: { name: 7 } } });
    const { result, written } = await firstAnswerOf([bad]);
    expect(written).toEqual([]);
    expect(result.preface.toString('utf8')).toBe(bad);
  });

  it('reads nothing when the home is in use, so the full start reports it', async () => {
    const home = temp.make('wheelhouse-first-');
    held.push(lockHome(home));
    const { result, stdin } = await firstAnswerOf([line(INITIALIZE)], home);
    expect(result).toMatchObject({ lock: null, initialize: null });
    expect(stdin.readableLength).toBeGreaterThan(0); // still there for the carrier
  });

  it('releases the home when stopped before the client sends anything', async () => {
    const home = temp.make('wheelhouse-first-');
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const pending = answerFirstRequest(home, stopped, { stdin: new PassThrough(), writeOut: () => undefined });
    stop();
    expect(await pending).toBe(STOPPED_BEFORE_INPUT);
    expect(fs.existsSync(path.join(home, 'runtime.lock'))).toBe(false);
  });

  it('hands nothing on when the input ends before anything was sent, keeping the lock for the carrier', async () => {
    const stdin = new PassThrough();
    stdin.end();
    const result = (await answerFirstRequest(temp.make('wheelhouse-first-'), new Promise(() => undefined), { stdin, writeOut: () => undefined })) as FirstAnswer;
    held.push(result.lock!);
    expect(result.lock).not.toBeNull();
    expect(result.initialize).toBeNull();
    expect(result.preface.length).toBe(0);
  });
});

describe('`wheelhouse app-server` after its first answer', () => {
  it('keeps the client\'s opt-outs and refuses a second initialize, with requests sent in the same write', async () => {
    const home = temp.make('wheelhouse-first-');
    const server = startAppServer(home);
    // One write: the first answer and the carrier both see it (first-answer.ts answers the first line).
    server.peer.sendRaw(
      [
        JSON.stringify({ id: 'i', method: 'initialize', params: { clientInfo: { name: 'quiet', version: '1' }, capabilities: { optOutNotificationMethods: ['thread/started'] } } }),
        JSON.stringify({ id: 's', method: 'thread/start', params: { cwd: home } }),
        JSON.stringify({ id: 'again', method: 'initialize', params: { clientInfo: { name: 'quiet', version: '1' } } }),
      ].join('\n'),
    );
    expect(await server.peer.inbox.response('i')).toMatchObject({ result: { wheelhouseHome: home } });
    expect(await server.peer.inbox.response('s')).toMatchObject({ result: { thread: { cwd: home } } });
    expect(await server.peer.inbox.response('again')).toMatchObject({ error: { code: ErrorCode.InvalidRequest, message: 'already initialized' } });
    // A second thread, after the first's notifications could have come: still none (a client that did not opt out gets one per thread).
    await server.peer.call('thread/start', { cwd: home });
    expect(server.peer.inbox.drainNotifications().map((n) => n.method)).not.toContain('thread/started');
    server.endInput();
    expect((await server.exited).code).toBe(0);
  });

  it('sends thread/started to a client that did not opt out (the test above would pass vacuously otherwise)', async () => {
    const home = temp.make('wheelhouse-first-');
    const server = startAppServer(home);
    await server.peer.initialize();
    await server.peer.call('thread/start', { cwd: home });
    await server.peer.inbox.notification('thread/started');
    server.endInput();
    expect((await server.exited).code).toBe(0);
  });
});
