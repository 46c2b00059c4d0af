import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHANGED_SINCE, RpcError } from '../../../shared/protocol/index.js';
import { execCall, textReply, toolCallReply } from '../../../test-support/agent-commands.js';
import { patchCall, patchOf } from '../../../test-support/agent-patches.js';
import { textInput as say, useMockAgentKit } from '../../../test-support/mock-agent-kit.js';

/**
 * Undo and the changes view through a real runtime: the mock model edits files with
 * apply_patch and with commands, in a real git repository and in a plain folder.
 */
const kit = useMockAgentKit();

function gitProject(): string {
  const project = kit.tempDir('wh-project-');
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: project });
  fs.writeFileSync(path.join(project, 'greeting.txt'), 'one\ntwo\nthree\n');
  execFileSync('git', ['add', '.'], { cwd: project });
  execFileSync('git', ['-c', 'user.name=P', '-c', 'user.email=p@p', 'commit', '-q', '-m', 'first'], { cwd: project });
  return project;
}

function plainProject(): string {
  const project = kit.tempDir('wh-plain-');
  fs.writeFileSync(path.join(project, 'greeting.txt'), 'one\ntwo\nthree\n');
  return project;
}

const agent = () => kit.agent();

const EDIT_GREETING = patchOf('*** Update File: greeting.txt', '@@', ' one', '-two', '+TWO', ' three', '*** Add File: notes/new.txt', '+fresh');
const read = (dir: string, file: string) => fs.readFileSync(path.join(dir, file), 'utf8');

describe.each([
  ['a git repository', gitProject],
  ['a plain folder', plainProject],
])('undo in %s', (_name, makeProject) => {
  it("takes back a patch's changes exactly, and announces the turn's diff as it grows", async () => {
    const a = agent();
    const project = makeProject();
    const { thread } = await a.call('thread/start', { cwd: project, approvalPolicy: 'never', sandbox: 'danger-full-access' });
    kit.mock.enqueue(patchCall(EDIT_GREETING), execCall('printf made > by-command.txt'), textReply('Edited.'));
    const { turn } = await a.call('turn/start', { threadId: thread.id, input: say('edit') });
    await a.completed(1);
    expect(read(project, 'greeting.txt')).toBe('one\nTWO\nthree\n');
    expect(read(project, 'by-command.txt')).toBe('made');

    const diffs = a.seen.filter((n) => n.method === 'turn/diff/updated').map((n) => n.params as { turnId: string; diff: string });
    expect(diffs).toHaveLength(2);
    expect(diffs.every((d) => d.turnId === turn.id)).toBe(true);
    expect(diffs[0]!.diff).toContain('-two\n+TWO');
    expect(diffs[0]!.diff).not.toContain('by-command.txt');
    expect(diffs[1]!.diff).toContain('+++ b/by-command.txt');

    const changes = await a.call('thread/changes/read', { threadId: thread.id });
    expect(changes.checkpoints.map((c) => c.turnId)).toEqual([turn.id]);
    expect(changes.files.map((f) => [f.path, f.status, f.added, f.removed])).toEqual([
      ['by-command.txt', 'added', 1, 0],
      ['greeting.txt', 'modified', 1, 1],
      ['notes/new.txt', 'added', 1, 0],
    ]);

    const undone = await a.call('thread/changes/revert', { threadId: thread.id, turnId: turn.id });
    expect(undone.restored.sort()).toEqual(['by-command.txt', 'greeting.txt', 'notes/new.txt']);
    expect(read(project, 'greeting.txt')).toBe('one\ntwo\nthree\n');
    expect(fs.existsSync(path.join(project, 'by-command.txt'))).toBe(false);
    expect(fs.existsSync(path.join(project, 'notes'))).toBe(false);
    expect((await a.call('thread/changes/read', { threadId: thread.id })).files).toEqual([]);
  });

  it('takes back one hunk of a file, leaving its other hunk, and refuses a hunk the person changed since', async () => {
    const a = agent();
    const project = makeProject();
    const lines = Array.from({ length: 20 }, (_, i) => `l${i + 1}`);
    fs.writeFileSync(path.join(project, 'long.txt'), `${lines.join('\n')}\n`);
    const { thread } = await a.call('thread/start', { cwd: project, approvalPolicy: 'never', sandbox: 'danger-full-access' });
    kit.mock.enqueue(patchCall(patchOf('*** Update File: long.txt', '@@', ' l1', '-l2', '+L2', ' l3', '@@', ' l17', '-l18', '+L18', ' l19')), textReply('Edited.'));
    await a.call('turn/start', { threadId: thread.id, input: say('edit') });
    await a.completed(1);

    const [file] = (await a.call('thread/changes/read', { threadId: thread.id })).files;
    const hunks = file!.diff.slice(file!.diff.indexOf('@@ ')).split(/^(?=@@ )/m);
    expect(hunks).toHaveLength(2);
    const undone = await a.call('thread/changes/revert', { threadId: thread.id, hunks: [{ path: 'long.txt', hunk: hunks[1]! }] });
    expect(undone.restored).toEqual(['long.txt']);
    expect(read(project, 'long.txt')).toBe(`${lines.map((line) => (line === 'l2' ? 'L2' : line)).join('\n')}\n`);

    // Undoing the rest afterwards still works: the part undone counts as the thread's doing.
    const snapshot = read(project, 'long.txt');

    // The person edits the first hunk's lines: taking it back now would lose their edit.
    const edited = read(project, 'long.txt').replace('L2\n', 'L2 and more\n');
    fs.writeFileSync(path.join(project, 'long.txt'), edited);
    const refused = await a.call('thread/changes/revert', { threadId: thread.id, hunks: [{ path: 'long.txt', hunk: hunks[0]! }] }).catch((error: unknown) => error);
    expect((refused as RpcError).data).toEqual({ reason: CHANGED_SINCE, files: ['long.txt'] });
    expect(read(project, 'long.txt')).toBe(edited);
    // Once the person's edit is gone again, undoing the whole thread takes the file back to its start.
    fs.writeFileSync(path.join(project, 'long.txt'), snapshot);
    await a.call('thread/changes/revert', { threadId: thread.id });
    expect(read(project, 'long.txt')).toBe(`${lines.join('\n')}\n`);
  });

  it('refuses to undo a file the person changed after the turn, naming it, and changes nothing', async () => {
    const a = agent();
    const project = makeProject();
    const { thread } = await a.call('thread/start', { cwd: project, approvalPolicy: 'never', sandbox: 'danger-full-access' });
    kit.mock.enqueue(patchCall(EDIT_GREETING), textReply('Edited.'));
    const { turn } = await a.call('turn/start', { threadId: thread.id, input: say('edit') });
    await a.completed(1);
    fs.writeFileSync(path.join(project, 'greeting.txt'), 'the person wrote this\n');
    const refused = await a.call('thread/changes/revert', { threadId: thread.id, turnId: turn.id }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RpcError);
    expect((refused as RpcError).data).toEqual({ reason: CHANGED_SINCE, files: ['greeting.txt'] });
    expect((refused as RpcError).message).toMatch(/greeting\.txt changed after the agent's edit/);
    expect(read(project, 'greeting.txt')).toBe('the person wrote this\n');
    expect(read(project, 'notes/new.txt')).toBe('fresh\n');
    // The file the person left alone can still be taken back by itself.
    await a.call('thread/changes/revert', { threadId: thread.id, turnId: turn.id, paths: ['notes/new.txt'] });
    expect(fs.existsSync(path.join(project, 'notes/new.txt'))).toBe(false);
  });
});

describe('a thread in its own copy', () => {
  it('works in a worktree on wheelhouse/<name>, leaves the checkout alone, merges back', async () => {
    const a = agent();
    const project = gitProject();
    const started = await a.call('thread/start', { cwd: project, worktree: true, approvalPolicy: 'never', sandbox: 'danger-full-access' });
    const copy = started.thread.cwd;
    expect(copy.startsWith(path.join(a.home, 'worktrees'))).toBe(true);
    expect(started.thread.gitInfo?.branch).toMatch(/^wheelhouse\/thread-/);
    kit.mock.enqueue(patchCall(EDIT_GREETING), textReply('Edited.'));
    await a.call('turn/start', { threadId: started.thread.id, input: say('edit') });
    await a.completed(1);
    expect(read(copy, 'greeting.txt')).toBe('one\nTWO\nthree\n');
    expect(read(project, 'greeting.txt')).toBe('one\ntwo\nthree\n');

    const { worktree } = await a.call('thread/worktree/read', { threadId: started.thread.id });
    expect(worktree).toMatchObject({ baseBranch: 'main', mainRoot: project, uncommittedPaths: ['greeting.txt', 'notes/new.txt'] });
    const projects = await a.call('project/list', {});
    expect(projects.data.map((p) => [p.path, p.threadIds])).toEqual([[project, [started.thread.id]]]);

    execFileSync('git', ['config', 'user.name', 'Person'], { cwd: project });
    execFileSync('git', ['config', 'user.email', 'person@example.com'], { cwd: project });
    const merged = await a.call('thread/worktree/merge', { threadId: started.thread.id, message: 'Shout two' });
    expect(merged.outcome).toMatchObject({ status: 'merged', how: 'fast-forward' });
    expect(read(project, 'greeting.txt')).toBe('one\nTWO\nthree\n');

    const discarded = await a.call('thread/worktree/discard', { threadId: started.thread.id });
    expect(discarded).toEqual({ branch: worktree!.branch, discardedCommits: 0 });
    expect(fs.existsSync(copy)).toBe(false);
    expect(execFileSync('git', ['for-each-ref', 'refs/wheelhouse/', 'refs/heads/wheelhouse/'], { cwd: project, encoding: 'utf8' })).toBe('');
    expect((await a.call('thread/worktree/read', { threadId: started.thread.id })).worktree).toBeNull();
  });

  it('runs an agent job in its own copy on wheelhouse/job-<objective>, never in the checkout', async () => {
    const a = agent();
    const project = gitProject();
    kit.mock.enqueue(patchCall(EDIT_GREETING), textReply('Edited.'), toolCallReply('update_goal', { status: 'complete' }, 'g1'), textReply('Done.'));
    const { job } = await a.call('job/create', { kind: 'agent', cwd: project, objective: 'Shout two', worktree: true, approvalPolicy: 'never', sandbox: 'danger-full-access' });
    expect(job.cwd.startsWith(path.join(a.home, 'worktrees'))).toBe(true);
    const { worktree } = await a.call('thread/worktree/read', { threadId: job.threadId! });
    expect(worktree).toMatchObject({ branch: 'wheelhouse/job-shout-two', baseBranch: 'main', mainRoot: project, path: job.cwd });
    await a.completed(2);
    expect(read(job.cwd, 'greeting.txt')).toBe('one\nTWO\nthree\n');
    expect(read(project, 'greeting.txt')).toBe('one\ntwo\nthree\n');
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: project, encoding: 'utf8' })).toBe('');
    // The job's thread sits under the project it was copied from.
    expect((await a.call('project/list', {})).data.map((p) => [p.path, p.threadIds])).toEqual([[project, [job.threadId]]]);
  });

  it('refuses an agent job in a copy of a plain folder, creating no job', async () => {
    const a = agent();
    const refused = await a.call('job/create', { kind: 'agent', cwd: plainProject(), objective: 'x', worktree: true }).catch((error: unknown) => error);
    expect((refused as RpcError).data).toMatchObject({ reason: 'worktree.notARepository' });
    expect((await a.call('job/list', {})).data).toEqual([]);
  });

  it('refuses a separate copy of a plain folder with a clear reason', async () => {
    const a = agent();
    const refused = await a.call('thread/start', { cwd: plainProject(), worktree: true }).catch((error: unknown) => error);
    expect((refused as RpcError).data).toEqual({ reason: 'worktree.notARepository' });
    expect((await a.call('thread/list', {})).data).toEqual([]);
  });

  it('remembers a project\'s settings for its new threads', async () => {
    const a = agent();
    const project = plainProject();
    await a.call('project/settings/write', { path: project, settings: { sandbox: 'read-only', approvalPolicy: 'untrusted' } });
    const { thread } = await a.call('thread/start', { cwd: project });
    expect([thread.sandbox, thread.approvalPolicy]).toEqual(['read-only', 'untrusted']);
    const state = await a.call('project/state/read', { path: project });
    expect(state).toMatchObject({ repository: null, settings: { sandbox: 'read-only', approvalPolicy: 'untrusted', model: null } });
    await a.call('project/settings/write', { path: project, settings: { sandbox: null } });
    expect((await a.call('project/state/read', { path: project })).settings.sandbox).toBeNull();
  });

  it("applies a project's own command rules to its threads and their separate copies, and nowhere else", async () => {
    const a = agent();
    const project = gitProject();
    const elsewhere = plainProject();
    await a.call('execPolicy/rules/write', { change: { type: 'add', rule: { pattern: ['make', 'deploy'], decision: 'forbidden' }, project } });
    const listed = await a.call('execPolicy/rules/list', {});
    expect(listed.rules.map((rule) => [rule.pattern, rule.project])).toEqual([[['make', 'deploy'], project]]);
    // The rules file is in the home, where an agent working in the project cannot write.
    expect(listed.rules[0]!.file.startsWith(path.join(a.home, 'rules', 'projects'))).toBe(true);

    const inProject = (await a.call('thread/start', { cwd: project })).thread.id;
    const inCopy = (await a.call('thread/start', { cwd: project, worktree: true })).thread.id;
    const other = (await a.call('thread/start', { cwd: elsewhere })).thread.id;
    const decide = async (threadId: string | null) => (await a.call('execPolicy/check', { command: 'make deploy --prod', threadId })).decision;
    expect(await decide(inProject)).toBe('forbidden');
    expect(await decide(inCopy)).toBe('forbidden');
    expect(await decide(other)).not.toBe('forbidden');
    expect(await decide(null)).not.toBe('forbidden');

    // Deleting it is an edit of that file like any other.
    const rule = listed.rules[0]!;
    await a.call('execPolicy/rules/write', { change: { type: 'delete', at: { file: rule.file, line: rule.line } } });
    expect(await decide(inProject)).not.toBe('forbidden');
  });
});
