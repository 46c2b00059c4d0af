import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import type { ThreadItem } from '../../../shared/protocol/index.js';
import { textReply, toolCallReply } from '../../../test-support/agent-commands.js';
import { patchCall, patchOf } from '../../../test-support/agent-patches.js';
import type { JobTestKit } from '../../../test-support/job-test-kit.js';
import { notificationsOf, turnsCompleted, useMachineThreads } from '../../../test-support/machine-threads.js';
import type { MockModelServer } from '../../../test-support/mock-model/index.js';
import { useTestSshd } from '../../../test-support/sshd-fixture.js';
import { sshdUnavailable, type TestSshd } from '../../../test-support/sshd.js';
import { waitUntil } from '../../../test-support/waiting.js';

/**
 * A thread on an SSH machine edits and reads the files of its folder there
 * (apply_patch and the file tools, over SFTP), through the runtime, with the
 * mock model calling the tools and Debian's real sshd on 127.0.0.1: "there"
 * is a folder of this machine reached only over SSH, while the thread's own
 * folder here holds decoys that must stay untouched.
 */
const unavailable = sshdUnavailable();
let sshd: TestSshd | undefined;

useTestSshd((started) => (sshd = started));
const machines = useMachineThreads(() => sshd);

type FileChangeItem = Extract<ThreadItem, { type: 'fileChange' }>;

/** The machine, and a folder here for the thread whose decoys must stay unread. */
async function machineKit(server: TestSshd) {
  const { k, mock, remoteFolder } = await machines.open(server);
  return { k, mock, remote: remoteFolder, local: machines.temp.make('wheelhouse-local-decoy-') };
}

function fileChanges(k: JobTestKit): FileChangeItem[] {
  return notificationsOf(k, 'item/completed')
    .map((n) => (n.params as { item: ThreadItem }).item)
    .filter((item): item is FileChangeItem => item.type === 'fileChange');
}

/** Every tool answer the model was sent, as text. */
function toolAnswers(mock: MockModelServer): string[] {
  const last = mock.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] };
  return last.messages.filter((message) => message.role === 'tool').map((message) => String(message.content));
}

const read = (file: string) => fs.readFileSync(file, 'utf8');

describe('the files of a thread on an SSH machine', () => {
  test('the file tools read there, and apply_patch adds, updates, deletes and moves files there, asked about here first naming the machine', async (ctx) => {
    if (!sshd) return ctx.skip(unavailable ?? 'no sshd');
    const { k, mock, remote, local } = await machineKit(sshd);
    fs.writeFileSync(path.join(remote, 'notes.txt'), 'remote one\nremote two\n');
    fs.writeFileSync(path.join(remote, 'old.txt'), 'to delete\n');
    fs.writeFileSync(path.join(remote, 'move-me.txt'), 'first\nsecond\n');
    // Decoys under the same names in the thread's folder on this computer.
    for (const name of ['notes.txt', 'old.txt', 'move-me.txt']) fs.writeFileSync(path.join(local, name), 'local decoy\n');
    const { thread } = await k.call('thread/start', { cwd: local, approvalPolicy: 'on-request', sandbox: 'workspace-write', environments: [{ environmentId: 'box', cwd: remote }] });
    mock.enqueue(
      toolCallReply('read_file', { path: 'notes.txt' }),
      toolCallReply('list_directory', {}),
      toolCallReply('search_text', { query: 'TWO' }),
      patchCall(
        patchOf(
          '*** Add File: sub/new.txt',
          '+made there',
          '*** Update File: notes.txt',
          '@@',
          ' remote one',
          '-remote two',
          '+remote 2',
          '*** Delete File: old.txt',
          '*** Update File: move-me.txt',
          '*** Move to: moved/done.txt',
          '@@',
          '-second',
          '+2nd',
        ),
      ),
      textReply('Done.'),
    );
    await k.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'edit the notes' }] });

    // The sandbox is this computer's: a patch there asks first, naming the machine, before anything is sent.
    const approval = await waitUntil(async () => (await k.call('approval/list', { threadId: thread.id })).data[0], {
      what: 'the patch to ask',
      wakeOn: (wake) => k.runtime.events.subscribe(wake),
    });
    expect(approval.method).toBe('item/fileChange/requestApproval');
    expect(approval.params).toMatchObject({ environmentId: 'box' });
    expect((approval.params as { reason: string }).reason).toContain('changes files on Build box, which this computer’s sandbox does not reach');
    expect(fs.existsSync(path.join(remote, 'sub'))).toBe(false);
    await k.call('approval/answer', { requestId: approval.requestId, decision: 'accept' });
    await k.until('the turn to end', () => turnsCompleted(k) === 1);

    const [readAnswer, listAnswer, searchAnswer, patchAnswer] = toolAnswers(mock);
    expect(readAnswer).toBe('remote one\nremote two\n');
    expect(listAnswer).toBe(['move-me.txt', 'notes.txt', 'old.txt'].join('\n'));
    expect(searchAnswer).toBe('notes.txt:2: remote two');
    expect(patchAnswer).toBe('Success. Changed these files:\nA sub/new.txt\nM notes.txt\nD old.txt\nM move-me.txt -> moved/done.txt');

    expect(read(path.join(remote, 'sub/new.txt'))).toBe('made there\n');
    expect(read(path.join(remote, 'notes.txt'))).toBe('remote one\nremote 2\n');
    expect(fs.existsSync(path.join(remote, 'old.txt'))).toBe(false);
    expect(fs.existsSync(path.join(remote, 'move-me.txt'))).toBe(false);
    expect(read(path.join(remote, 'moved/done.txt'))).toBe('first\n2nd\n');
    expect(fs.readdirSync(remote).sort()).toEqual(['moved', 'notes.txt', 'sub']);
    expect(fs.readdirSync(local).sort()).toEqual(['move-me.txt', 'notes.txt', 'old.txt']);
    expect(read(path.join(local, 'notes.txt'))).toBe('local decoy\n');

    const [change] = fileChanges(k);
    expect(change).toMatchObject({ status: 'completed', environmentId: 'box' });
    expect(change!.changes.map((c) => c.path)).toEqual([`${remote}/sub/new.txt`, `${remote}/notes.txt`, `${remote}/old.txt`, `${remote}/move-me.txt`]);
  });

  test('a path out of the folder there, by .. or through a symlink, is refused and changes nothing; the file tools refuse it too', async (ctx) => {
    if (!sshd) return ctx.skip(unavailable ?? 'no sshd');
    const { k, mock, remote, local } = await machineKit(sshd);
    const outside = machines.temp.make('wheelhouse-remote-outside-');
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret\n');
    fs.symlinkSync(outside, path.join(remote, 'link'));
    const { thread } = await k.call('thread/start', { cwd: local, approvalPolicy: 'on-request', sandbox: 'workspace-write', environments: [{ environmentId: 'box', cwd: remote }] });
    mock.enqueue(
      patchCall(patchOf('*** Add File: ../escaped.txt', '+out')),
      patchCall(patchOf('*** Update File: link/secret.txt', '@@', '-secret', '+changed')),
      toolCallReply('read_file', { path: 'link/secret.txt' }),
      textReply('Stopped.'),
    );
    await k.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'escape' }] });
    await k.until('the turn to end', () => turnsCompleted(k) === 1);

    expect(fileChanges(k).map((item) => item.status)).toEqual(['failed', 'failed']);
    const [dotdot, symlink, readThrough] = toolAnswers(mock);
    expect(dotdot).toContain('../escaped.txt is outside the project folder');
    expect(symlink).toContain('link/secret.txt is outside the project folder');
    expect(readThrough).toContain('link/secret.txt is outside the project folder');
    expect(readThrough).not.toContain('secret\n');
    expect(fs.existsSync(path.join(path.dirname(remote), 'escaped.txt'))).toBe(false);
    expect(read(path.join(outside, 'secret.txt'))).toBe('secret\n');
    expect((await k.call('approval/list', { threadId: thread.id })).data).toEqual([]);
  });
});
