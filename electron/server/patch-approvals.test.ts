import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastToolMessage, textReply, turnEnd } from '../../test-support/agent-commands.js';
import { fileApprovalRequest, fileChangeItem, patchCall, patchOf, type FileChangeItem } from '../../test-support/agent-patches.js';
import { useServedAgentHomes } from '../../test-support/served-agent-home.js';

/**
 * The agent edits files with apply_patch, the person in control, over real
 * WebSockets to `wheelhouse serve` (every message checked against Codex's
 * schema by the peers), with the mock model asking for the patch.
 */
const served = useServedAgentHomes();
const { serve, client } = served;


function makeHome(extraToml = ''): { home: string; project: string } {
  const made = served.makeHome('wheelhouse-patches-', extraToml);
  fs.writeFileSync(path.join(made.project, 'greeting.txt'), 'one\ntwo\nthree\n');
  return made;
}

const read = (project: string, file: string) => fs.readFileSync(path.join(project, file), 'utf8');
const UPDATE_GREETING = patchOf('*** Update File: greeting.txt', '@@', ' one', '-two', '+TWO', ' three', '*** Add File: notes/new.txt', '+fresh');

describe('apply_patch with approvals over WebSocket', () => {
  it('shows the diff before asking every client; the first answer wins; the files change and the item completes', async () => {
    const { home, project } = makeHome();
    const server = await serve(home);
    const alice = await client(server, 'alice');
    const bob = await client(server, 'bob');
    served.mock.enqueue(patchCall(UPDATE_GREETING), textReply('Edited.'));
    const before = served.mock.requests.length;
    const { thread } = await alice.call('thread/start', { cwd: project });
    await alice.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'edit it' }] });

    const started = await fileChangeItem(alice, 'item/started');
    expect(started.status).toBe('inProgress');
    const root = fs.realpathSync(project);
    expect(started.changes).toEqual([
      { path: path.join(root, 'greeting.txt'), kind: { type: 'update', move_path: null }, diff: expect.stringContaining('-two\n+TWO') },
      { path: path.join(root, 'notes/new.txt'), kind: { type: 'add' }, diff: 'fresh\n' },
    ]);
    const toAlice = await fileApprovalRequest(alice);
    const toBob = await fileApprovalRequest(bob);
    expect(toBob.id).toBe(toAlice.id);
    expect(toAlice.params).toMatchObject({ threadId: thread.id, itemId: started.id, grantRoot: null });
    expect((toAlice.params as { reason: string }).reason).toBe('this thread asks before any file is changed. Files: changed greeting.txt, new notes/new.txt');
    expect(read(project, 'greeting.txt')).toBe('one\ntwo\nthree\n');
    expect((await alice.call('approval/list', {})).data).toEqual([
      { requestId: String(toAlice.id), method: 'item/fileChange/requestApproval', params: toAlice.params },
    ]);

    bob.sendRaw(JSON.stringify({ id: toBob.id, result: { decision: 'accept' } }));
    expect((await alice.inbox.notification('serverRequest/resolved')).params).toEqual({ threadId: thread.id, requestId: toAlice.id });
    const late = await alice.request('approval/answer', { requestId: String(toAlice.id), decision: 'decline' });
    expect('error' in late && late.error.message).toMatch(/not waiting/);

    const completed = await fileChangeItem(alice, 'item/completed');
    expect(completed).toMatchObject({ id: started.id, status: 'completed', changes: started.changes });
    expect(read(project, 'greeting.txt')).toBe('one\nTWO\nthree\n');
    expect(read(project, 'notes/new.txt')).toBe('fresh\n');
    expect((await turnEnd(alice)).status).toBe('completed');
    expect(lastToolMessage(served.mock, before + 1)).toBe('Success. Changed these files:\nM greeting.txt\nA notes/new.txt');
    const stored = (await alice.call('thread/read', { threadId: thread.id, includeTurns: true })).thread.turns.at(-1)!.items.find((i) => i.type === 'fileChange');
    expect(stored).toMatchObject({ status: 'completed', changes: started.changes });
  });

  it('a declined patch changes nothing; the model reads why and the turn goes on', async () => {
    const { home, project } = makeHome();
    const alice = await client(await serve(home), 'alice');
    served.mock.enqueue(patchCall(patchOf('*** Delete File: greeting.txt')), textReply('Understood.'));
    const before = served.mock.requests.length;
    const { thread } = await alice.call('thread/start', { cwd: project });
    await alice.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'delete it' }] });
    const started = await fileChangeItem(alice, 'item/started');
    expect(started.changes).toEqual([{ path: path.join(fs.realpathSync(project), 'greeting.txt'), kind: { type: 'delete' }, diff: 'one\ntwo\nthree\n' }]);
    const request = await fileApprovalRequest(alice);
    alice.sendRaw(JSON.stringify({ id: request.id, result: { decision: 'decline' } }));
    expect(await fileChangeItem(alice, 'item/completed')).toMatchObject({ status: 'declined', outcome: { by: 'person', answer: 'declined' } });
    expect((await turnEnd(alice)).status).toBe('completed');
    expect(read(project, 'greeting.txt')).toBe('one\ntwo\nthree\n');
    expect(lastToolMessage(served.mock, before + 1)).toMatch(/^Not applied: the person declined this patch; no file was changed/);
  });

  it('a hunk that does not apply changes nothing, asks nobody, and names the hunk', async () => {
    const { home, project } = makeHome();
    const alice = await client(await serve(home), 'alice');
    const bad = patchOf('*** Add File: would-be.txt', '+x', '*** Update File: greeting.txt', '@@', '-one', '+ONE', '@@', '-four', '+FOUR');
    served.mock.enqueue(patchCall(bad), textReply('I will look again.'));
    const before = served.mock.requests.length;
    const { thread } = await alice.call('thread/start', { cwd: project });
    await alice.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'edit' }] });
    const item = await fileChangeItem(alice, 'item/completed');
    expect(item.status).toBe('failed');
    expect(item.modelOutput).toMatch(/hunk 2 of greeting\.txt does not apply[\s\S]*four/);
    expect((await turnEnd(alice)).status).toBe('completed');
    expect(lastToolMessage(served.mock, before + 1)).toMatch(/^Not applied; no file was changed\. apply_patch verification failed: hunk 2 of greeting\.txt does not apply/);
    expect(read(project, 'greeting.txt')).toBe('one\ntwo\nthree\n');
    expect(fs.existsSync(path.join(project, 'would-be.txt'))).toBe(false);
    expect(alice.inbox.drainNotifications().some((n) => n.method === 'serverRequest/resolved')).toBe(false);
  });

  it('a path outside the workspace is refused unless the thread runs danger-full-access', async () => {
    const { home, project } = makeHome();
    const outside = served.temp.make('wheelhouse-outside-');
    const alice = await client(await serve(home), 'alice');
    const escape = patchOf(`*** Add File: ${path.relative(project, path.join(outside, 'escaped.txt'))}`, '+out');
    served.mock.enqueue(patchCall(escape), textReply('ok'));
    const before = served.mock.requests.length;
    const { thread } = await alice.call('thread/start', { cwd: project, approvalPolicy: 'never', sandbox: 'workspace-write' });
    await alice.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'escape' }] });
    expect((await fileChangeItem(alice, 'item/completed')).status).toBe('failed');
    await turnEnd(alice);
    expect(lastToolMessage(served.mock, before + 1)).toMatch(/^Not applied; no file was changed\. apply_patch verification failed: .*escaped\.txt is outside the project folder/);
    expect(fs.existsSync(path.join(outside, 'escaped.txt'))).toBe(false);

    served.mock.enqueue(patchCall(escape, 'call_full'), textReply('ok'));
    const { thread: full } = await alice.call('thread/start', { cwd: project, approvalPolicy: 'never', sandbox: 'danger-full-access' });
    await alice.call('turn/start', { threadId: full.id, input: [{ type: 'text', text: 'escape' }] });
    expect((await fileChangeItem(alice, 'item/completed')).status).toBe('completed');
    await turnEnd(alice);
    expect(read(outside, 'escaped.txt')).toBe('out\n');
  });

  it('policy: inside the workspace under workspace-write applies unasked; read-only under never is refused', async () => {
    const { home, project } = makeHome();
    const alice = await client(await serve(home), 'alice');
    served.mock.enqueue(patchCall(UPDATE_GREETING), textReply('done'));
    const { thread } = await alice.call('thread/start', { cwd: project, approvalPolicy: 'on-request', sandbox: 'workspace-write' });
    await alice.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'go' }] });
    expect((await fileChangeItem(alice, 'item/completed')).status).toBe('completed');
    await turnEnd(alice);
    expect(read(project, 'greeting.txt')).toBe('one\nTWO\nthree\n');

    // The folder's .git is not writable for the sandbox, so a patch there asks even under on-request.
    served.mock.enqueue(patchCall(patchOf('*** Add File: .git/hooks/pre-commit', '+#!/bin/sh'), 'call_git'), textReply('asked'));
    await alice.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'hook' }] });
    const gitRequest = await fileApprovalRequest(alice);
    expect((gitRequest.params as { reason: string }).reason).toMatch(/or its git data.*new \.git\/hooks\/pre-commit/);
    alice.sendRaw(JSON.stringify({ id: gitRequest.id, result: { decision: 'decline' } }));
    await turnEnd(alice);
    expect(fs.existsSync(path.join(project, '.git'))).toBe(false);

    served.mock.enqueue(patchCall(patchOf('*** Delete File: greeting.txt'), 'call_ro'), textReply('fine'));
    const before = served.mock.requests.length;
    const { thread: readOnly } = await alice.call('thread/start', { cwd: project, approvalPolicy: 'never', sandbox: 'read-only' });
    await alice.call('turn/start', { threadId: readOnly.id, input: [{ type: 'text', text: 'go' }] });
    expect((await fileChangeItem(alice, 'item/completed')).status).toBe('declined');
    await turnEnd(alice);
    expect(lastToolMessage(served.mock, before + 1)).toMatch(/^Not applied: this thread may only read files, and this thread never asks/);
    expect(fs.existsSync(path.join(project, 'greeting.txt'))).toBe(true);
  });

  it('accept for session lets the thread\'s later patches through until revoked; cancel stops the turn', async () => {
    const { home, project } = makeHome();
    const alice = await client(await serve(home), 'alice');
    const { thread } = await alice.call('thread/start', { cwd: project });
    served.mock.enqueue(patchCall(patchOf('*** Add File: a.txt', '+a')), textReply('one'));
    await alice.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'first' }] });
    const first = await fileApprovalRequest(alice);
    // A command-only decision is a typed error for a file change, and changes nothing.
    const wrong = await alice.request('approval/answer', { requestId: String(first.id), decision: { acceptWithExecpolicyAmendment: { execpolicy_amendment: ['x'] } } });
    expect('error' in wrong && wrong.error.message).toMatch(/is a file change/);
    alice.sendRaw(JSON.stringify({ id: first.id, result: { decision: 'acceptForSession' } }));
    expect((await fileChangeItem(alice, 'item/completed')).status).toBe('completed');
    await turnEnd(alice);
    const grants = (await alice.call('approval/grants/list', { threadId: thread.id })).data;
    expect(grants).toEqual([{ threadId: thread.id, prefix: [], kind: 'fileChange', root: fs.realpathSync(project), grantedAtMs: expect.any(Number) }]);

    served.mock.enqueue(patchCall(patchOf('*** Add File: b.txt', '+b'), 'call_b'), textReply('two'));
    await alice.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'second' }] });
    expect((await fileChangeItem(alice, 'item/completed')).status).toBe('completed');
    await turnEnd(alice);
    expect(read(project, 'b.txt')).toBe('b\n');

    expect(await alice.call('approval/grants/revoke', { threadId: thread.id, prefix: [], kind: 'fileChange' })).toEqual({ revoked: true });
    served.mock.enqueue(patchCall(patchOf('*** Add File: c.txt', '+c'), 'call_c'));
    await alice.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'third' }] });
    const third = await fileApprovalRequest(alice);
    alice.sendRaw(JSON.stringify({ id: third.id, result: { decision: 'cancel' } }));
    expect((await fileChangeItem(alice, 'item/completed')).status).toBe('declined');
    expect((await turnEnd(alice)).status).toBe('interrupted');
    expect(fs.existsSync(path.join(project, 'c.txt'))).toBe(false);
  });

  it('PreToolUse hooks can block apply_patch; PostToolUse hooks hear an applied one', async () => {
    const hooksDir = served.temp.make('wheelhouse-patch-hooks-');
    const pre = path.join(hooksDir, 'pre.sh');
    const post = path.join(hooksDir, 'post.sh');
    fs.writeFileSync(pre, `#!/bin/sh\nif grep -q forbidden.txt; then echo '{"decision":"block","reason":"not that file"}'; fi\n`, { mode: 0o755 });
    fs.writeFileSync(post, `#!/bin/sh\ncat > ${JSON.stringify(path.join(hooksDir, 'post.json'))}\n`, { mode: 0o755 });
    // Blocks the approval request of a patch to secret.txt (the person is never asked); lets others through.
    const perm = path.join(hooksDir, 'perm.sh');
    fs.writeFileSync(perm, `#!/bin/sh\nif grep -q '"phase":"requested"' && [ -e ${JSON.stringify(path.join(hooksDir, 'deny-next'))} ]; then echo '{"decision":"block","reason":"no secrets"}'; fi\n`, { mode: 0o755 });
    const hookToml = [
      '',
      '[[hooks.PreToolUse]]',
      'matcher = "^apply_patch$"',
      '[[hooks.PreToolUse.hooks]]',
      'name = "guard"',
      `command = ["/bin/sh", ${JSON.stringify(pre)}]`,
      '[[hooks.PostToolUse]]',
      'matcher = "^apply_patch$"',
      '[[hooks.PostToolUse.hooks]]',
      'name = "audit"',
      `command = ["/bin/sh", ${JSON.stringify(post)}]`,
      '[[hooks.PermissionRequest]]',
      'matcher = "^apply_patch$"',
      '[[hooks.PermissionRequest.hooks]]',
      'name = "no-asking"',
      `command = ["/bin/sh", ${JSON.stringify(perm)}]`,
      '',
    ].join('\n');
    const { home, project } = makeHome(hookToml);
    const alice = await client(await serve(home), 'alice');
    const { thread } = await alice.call('thread/start', { cwd: project, approvalPolicy: 'never', sandbox: 'workspace-write' });
    served.mock.enqueue(patchCall(patchOf('*** Add File: forbidden.txt', '+no')), textReply('blocked'));
    const before = served.mock.requests.length;
    await alice.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'one' }] });
    expect((await fileChangeItem(alice, 'item/completed')).status).toBe('declined');
    await turnEnd(alice);
    expect(lastToolMessage(served.mock, before + 1)).toBe("Not applied: blocked by hook 'guard' at PreToolUse: not that file");
    expect(fs.existsSync(path.join(project, 'forbidden.txt'))).toBe(false);
    expect(fs.existsSync(path.join(hooksDir, 'post.json'))).toBe(false);

    served.mock.enqueue(patchCall(patchOf('*** Add File: fine.txt', '+yes'), 'call_fine'), textReply('applied'));
    await alice.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'two' }] });
    const item: FileChangeItem = await fileChangeItem(alice, 'item/completed');
    expect(item.status).toBe('completed');
    await turnEnd(alice);
    const heard = JSON.parse(fs.readFileSync(path.join(hooksDir, 'post.json'), 'utf8')) as Record<string, unknown>;
    expect(heard).toMatchObject({ hook_event_name: 'PostToolUse', tool_name: 'apply_patch', tool_use_id: 'call_fine', tool_response: { success: true, output: 'Success. Changed these files:\nA fine.txt' } });

    // In a thread that asks, a PermissionRequest hook may decline before anyone is asked.
    fs.writeFileSync(path.join(hooksDir, 'deny-next'), '');
    const { thread: asking } = await alice.call('thread/start', { cwd: project, approvalPolicy: 'untrusted' });
    served.mock.enqueue(patchCall(patchOf('*** Add File: secret.txt', '+s'), 'call_secret'), textReply('ok'));
    const beforeSecret = served.mock.requests.length;
    await alice.call('turn/start', { threadId: asking.id, input: [{ type: 'text', text: 'three' }] });
    expect((await fileChangeItem(alice, 'item/completed')).status).toBe('declined');
    await turnEnd(alice);
    expect(lastToolMessage(served.mock, beforeSecret + 1)).toBe("Not applied: blocked by hook 'no-asking' at PermissionRequest: no secrets");
    expect(fs.existsSync(path.join(project, 'secret.txt'))).toBe(false);
    expect(alice.inbox.drainNotifications().some((n) => n.method === 'serverRequest/resolved')).toBe(false);
  });

  it.each([
    ['stopped', /^Not applied: the turn was stopped before the patch was approved\.$/],
    ['killed', /^Not applied: Wheelhouse stopped while this patch waited for approval\.$/],
  ] as const)('a window that connects later gets the waiting request; after Wheelhouse is %s the approval has ended and nothing changed', async (how, expected) => {
    const { home, project } = makeHome();
    const server = await serve(home);
    const alice = await client(server, 'alice');
    served.mock.enqueue(patchCall(UPDATE_GREETING));
    const { thread } = await alice.call('thread/start', { cwd: project });
    await alice.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'go' }] });
    const request = await fileApprovalRequest(alice);
    const latecomer = await client(server, 'reloaded-window');
    expect((await fileApprovalRequest(latecomer)).id).toBe(request.id);
    // The waiting patch is part of the thread already, diff and all, for a window that reloads.
    const waiting = (await latecomer.call('thread/resume', { threadId: thread.id })).items.find((i) => i.type === 'fileChange');
    expect(waiting).toMatchObject({ status: 'inProgress', changes: [{ kind: { type: 'update' } }, { kind: { type: 'add' } }] });

    if (how === 'killed') {
      server.process.child.kill('SIGKILL');
      await server.process.exited;
    } else {
      await server.stop();
    }
    const bob = await client(await serve(home), 'bob');
    expect((await bob.call('approval/list', {})).data).toEqual([]);
    const answer = await bob.request('approval/answer', { requestId: String(request.id), decision: 'accept' });
    expect('error' in answer && answer.error.message).toMatch(/not waiting/);
    const turn = (await bob.call('thread/read', { threadId: thread.id, includeTurns: true })).thread.turns.at(-1)!;
    expect(turn.status).toBe('interrupted');
    const item = turn.items.find((i) => i.type === 'fileChange') as FileChangeItem;
    expect(item.status).toBe('declined');
    expect(item.changes.length).toBe(2);
    expect(item.modelOutput).toMatch(expected);
    expect(item.outcome).toEqual({ by: 'turnEnded' });
    expect(read(project, 'greeting.txt')).toBe('one\ntwo\nthree\n');
  });
});
