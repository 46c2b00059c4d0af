import { describe, expect, it } from 'vitest';
import type { Turn } from '../../shared/protocol/index.js';
import { readsFd } from '../../test-support/event-loop-fds.js';
import { useStdioAgentHomes } from '../../test-support/stdio-agent-home.js';
import { waitUntil } from '../../test-support/waiting.js';

/**
 * `wheelhouse app-server` as a real process whose client stops reading its
 * stdout: the host must not buffer without bound. With `--max-unsent-mib 1`
 * it stops reading requests above 128 KiB of unread output, and drops the
 * client (exit 1, reason on stderr) when output it produces on its own
 * passes 1 MiB.
 */
const stdio = useStdioAgentHomes();

const LIMIT_ARGS = ['--max-unsent-mib', '1'];

describe('stdio backpressure', () => {
  it.skipIf(process.platform !== 'linux')('stops reading requests from a client that does not read its answers, then answers them all once it does', async () => {
    const server = stdio.start(stdio.temp.make(), { args: LIMIT_ARGS });
    await server.peer.initialize();
    const stdout = server.process.child.stdout!;
    const stdin = server.process.child.stdin!;
    stdout.pause();

    // ~8 MiB of answers (config/read lists every provider and model): eight times the limit.
    const probe = JSON.stringify({ id: 'size', method: 'config/read', params: {} });
    stdin.write(`${probe}\n`);
    stdout.resume();
    const size = JSON.stringify(await server.peer.inbox.response('size')).length;
    stdout.pause();
    const count = Math.ceil((8 * 1024 * 1024) / size);
    // Long ids keep the requests themselves well past what the pipe holds, however large an answer is.
    const idOf = (n: number) => `request-${n}-${'x'.repeat(200)}`; // ids stay within the protocol's 256 characters
    for (let n = 0; n < count; n++) stdin.write(`${JSON.stringify({ id: idOf(n), method: 'config/read', params: {} })}\n`);

    // The host stops reading (its event loop no longer watches its stdin) while our requests still wait in our own stdin buffer.
    await waitUntil(() => stdin.writableLength > 0 && !readsFd(server.process.child.pid!, 0), {
      what: 'the app-server to stop reading its stdin while requests still wait to be sent',
    });
    expect(server.process.child.exitCode).toBeNull();

    stdout.resume();
    for (let n = 0; n < count; n++) expect(await server.peer.inbox.response(idOf(n), 60_000)).toHaveProperty('result');
    expect(server.peer.inbox.garbage).toEqual([]);
    server.endInput();
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.process.stderr()).not.toContain('stopped reading');
  }, 120_000);

  it('drops a client that stops reading while a turn streams, with the reason on stderr, and the turn ends cleanly', async () => {
    const { home } = stdio.makeHome('wheelhouse-backpressure-');
    // 4 MiB of reply in 8 KiB deltas: four times the limit.
    stdio.mock.enqueue([...Array.from({ length: 512 }, () => ({ type: 'text' as const, text: 'y'.repeat(8 * 1024) })), { type: 'finish' }]);
    const server = stdio.start(home, { args: LIMIT_ARGS });
    await server.peer.initialize();
    const { thread } = await server.peer.call('thread/start', { cwd: home });
    server.process.child.stdout!.pause();
    server.peer.sendRaw(JSON.stringify({ id: 'turn', method: 'turn/start', params: { threadId: thread.id, input: [{ type: 'text', text: 'talk' }] } }));

    expect(await server.exited).toEqual({ code: 1, signal: null });
    expect(server.process.stderr()).toMatch(/the client stopped reading: [\d.]+ MiB of output unsent \(limit 1 MiB\); disconnecting it/);

    const again = stdio.start(home);
    await again.peer.initialize();
    const read = await again.peer.call('thread/read', { threadId: thread.id, includeTurns: true });
    const turn: Turn | undefined = read.thread.turns[0];
    expect(turn?.status).toBe('interrupted');
    again.endInput();
    expect((await again.exited).code).toBe(0);
  }, 120_000);
});
