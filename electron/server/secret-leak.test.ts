import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ModelTestResult, Turn } from '../../shared/protocol/index.js';
import { useStdioAgentHomes } from '../../test-support/stdio-agent-home.js';

/**
 * A provider that quotes the key back in its 401 body, as OpenAI does
 * ("Incorrect API key provided: sk-…"). The key must end up nowhere: not in
 * the home folder (SQLite file and WAL included), not in anything a client
 * receives, not on stderr.
 */
const stdio = useStdioAgentHomes();

/** Every file under `dir`, as bytes decoded leniently (binary SQLite pages included). */
function allFileText(dir: string): Array<{ file: string; text: string }> {
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).flatMap((entry) => {
    const file = path.join(dir, entry);
    return fs.statSync(file).isFile() ? [{ file: entry, text: fs.readFileSync(file).toString('latin1') }] : [];
  });
}

const text = (t: string) => [{ type: 'text' as const, text: t }];

describe.each([
  ['an sk- key', 'sk-proj-Leak3dKeyAbcdefghijklmnop'],
  // Not key-shaped: only knowing the configured key can catch it.
  ['a key of no known shape', 'plain-words-secret'],
])('a provider that echoes %s in its 401', (_label, apiKey) => {
  it('never lets the key reach the home folder, the client or the logs', async () => {
    const { home } = stdio.makeHome('wheelhouse-secret-', 'env_key = "MOCK_PROVIDER_KEY"\n');
    const echo = { type: 'httpError' as const, status: 401, message: `Incorrect API key provided: ${apiKey}. You can find your API key in your account.` };
    stdio.mock.enqueue([echo], [echo]);

    const server = stdio.start(home, { env: { MOCK_PROVIDER_KEY: apiKey } });
    let traffic = '';
    server.process.child.stdout?.on('data', (chunk: Buffer) => {
      traffic += chunk.toString('utf8');
    });
    await server.peer.initialize();
    const { thread } = await server.peer.call('thread/start', { cwd: home });
    await server.peer.call('turn/start', { threadId: thread.id, input: text('hi') });
    const completed = await server.peer.inbox.notification('turn/completed');
    const turn = (completed.params as { turn: Turn }).turn;
    expect(turn.status).toBe('failed');
    expect(turn.error?.kind).toBe('unauthorized');
    // The provider's words are still there, minus the key.
    expect(turn.error?.additionalDetails).toContain('Incorrect API key provided: [redacted]');

    const probe: ModelTestResult = await server.peer.call('model/test', { providerId: 'mock', model: 'deepseek-chat' });
    expect(probe.ok).toBe(false);

    const replay = await server.peer.call('events/replay', { afterSeq: 0 });
    expect(replay.events.some((envelope) => envelope.event === 'turn/completed')).toBe(true);
    const read = await server.peer.call('thread/read', { threadId: thread.id, includeTurns: true });
    expect(read.thread.turns[0]?.error?.kind).toBe('unauthorized');
    server.endInput();
    await server.exited;

    expect(stdio.mock.requests.at(-1)?.headers.authorization).toBe(`Bearer ${apiKey}`);
    expect(traffic).toContain('Incorrect API key provided');
    expect(traffic).not.toContain(apiKey);
    expect(server.process.stderr()).not.toContain(apiKey);
    const files = allFileText(home);
    expect(files.map((f) => f.file)).toContain('state.sqlite');
    for (const { file, text: content } of files) expect({ file, leaks: content.includes(apiKey) }).toEqual({ file, leaks: false });
  }, 60_000);
});
