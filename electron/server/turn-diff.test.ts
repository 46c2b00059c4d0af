import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { textReply, turnEnd } from '../../test-support/agent-commands.js';
import { patchCall, patchOf } from '../../test-support/agent-patches.js';
import { useServedAgentHomes } from '../../test-support/served-agent-home.js';

/**
 * Codex's `turn/diff/updated` over a real WebSocket to `wheelhouse serve` (each message
 * checked against Codex's schema by the peer): the turn's diff equals what git says the
 * turn changed, and undo over the same carrier puts the bytes back.
 */
const served = useServedAgentHomes();

describe('turn/diff/updated over WebSocket', () => {
  it("carries the turn's unified diff, equal to git's diff of the turn; undo restores the file", async () => {
    const { home, project } = served.makeHome('wheelhouse-turn-diff-');
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: project });
    fs.writeFileSync(path.join(project, 'greeting.txt'), 'one\ntwo\nthree\n');
    execFileSync('git', ['add', '.'], { cwd: project });
    execFileSync('git', ['-c', 'user.name=P', '-c', 'user.email=p@p', 'commit', '-q', '-m', 'first'], { cwd: project });
    const alice = await served.client(await served.serve(home), 'alice');
    served.mock.enqueue(patchCall(patchOf('*** Update File: greeting.txt', '@@', ' one', '-two', '+TWO', ' three')), textReply('Done.'));
    const { thread } = await alice.call('thread/start', { cwd: project, approvalPolicy: 'never', sandbox: 'danger-full-access' });
    const { turn } = await alice.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'shout two' }] });
    const update = await alice.inbox.notification('turn/diff/updated');
    await turnEnd(alice);
    const gitDiff = execFileSync('git', ['diff', '--no-color'], { cwd: project, encoding: 'utf8' });
    expect(update.params).toEqual({ threadId: thread.id, turnId: turn.id, diff: gitDiff });

    expect(await alice.call('thread/changes/revert', { threadId: thread.id, turnId: turn.id })).toEqual({ restored: ['greeting.txt'] });
    expect(fs.readFileSync(path.join(project, 'greeting.txt'), 'utf8')).toBe('one\ntwo\nthree\n');
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: project, encoding: 'utf8' })).toBe('');
  });
});
