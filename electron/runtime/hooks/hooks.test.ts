import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HookRunNotification } from '../../../shared/protocol/index.js';
import { CodexSchema } from '../../../test-support/codex-schema.js';
import { everythingServerScript, stdioServerToml } from '../../../test-support/mcp-servers.js';
import { textInput as text, useMockAgentKit } from '../../../test-support/mock-agent-kit.js';
import { waitUntil } from '../../../test-support/waiting.js';

/**
 * Hooks as a user configures them: real shell scripts named in config.toml,
 * run through the process supervisor at session start, around tool calls and
 * at turn start and end. Every hook message is checked against Codex's schema.
 */
const kit = useMockAgentKit();

interface HookSpec {
  readonly event: 'SessionStart' | 'UserPromptSubmit' | 'PreToolUse' | 'PostToolUse' | 'PermissionRequest' | 'Stop';
  readonly name: string;
  /** Body of a /bin/sh script; `$OUT` is a folder the test reads. */
  readonly script: string;
  readonly matcher?: string;
  readonly timeoutSec?: number;
}

/** A runtime whose config.toml names these hooks, each a real script in a temp folder. */
function hooked(hooks: readonly HookSpec[], extraToml = '') {
  const home = kit.tempDir('wh-hooks-');
  const out = path.join(home, 'out');
  fs.mkdirSync(out);
  const toml = hooks
    .map((hook, index) => {
      const script = path.join(home, `hook-${index}.sh`);
      fs.writeFileSync(script, `#!/bin/sh\nOUT=${JSON.stringify(out)}\n${hook.script}\n`, { mode: 0o755 });
      return [
        `[[hooks.${hook.event}]]`,
        ...(hook.matcher ? [`matcher = ${JSON.stringify(hook.matcher)}`] : []),
        `[[hooks.${hook.event}.hooks]]`,
        `name = ${JSON.stringify(hook.name)}`,
        `command = ["/bin/sh", ${JSON.stringify(script)}]`,
        ...(hook.timeoutSec ? [`timeout_sec = ${hook.timeoutSec}`] : []),
      ].join('\n');
    })
    .join('\n\n');
  fs.writeFileSync(path.join(home, 'config.toml'), `${toml}\n${extraToml}`);
  const agent = kit.agent({ home, settledCalls: true });
  const hookRuns = (method: 'hook/started' | 'hook/completed') =>
    agent.seen.filter((n) => n.method === method).map((n) => n.params as HookRunNotification);
  const completedRun = (eventName: string) => agent.until(`the ${eventName} hook run`, () => hookRuns('hook/completed').find((n) => n.run.eventName === eventName));
  return { ...agent, out, hookRuns, completedRun };
}

let codex: CodexSchema | undefined;
/** `value` conforms to Codex's `v2/<type>`, every nullable field present as Codex sends it. */
function expectCodex(type: string, value: unknown) {
  codex ??= CodexSchema.load();
  expect(codex.check(`#/definitions/v2/${type}`, value, { complete: true })).toBeUndefined();
}

/** Every hook notification seen conforms to Codex's HookStarted/HookCompletedNotification. */
function expectCodexShapes(runs: { started: HookRunNotification[]; completed: HookRunNotification[] }) {
  expect(runs.completed.length).toBeGreaterThan(0);
  for (const n of runs.started) expectCodex('HookStartedNotification', n);
  for (const n of runs.completed) expectCodex('HookCompletedNotification', n);
}

describe('session start hooks', () => {
  it('a blocking hook refuses thread/start with seed 002 text, and no thread is created', async () => {
    const h = hooked([{ event: 'SessionStart', name: 'gatekeeper', script: `cat >/dev/null\necho '{"decision":"block","reason":"no new sessions today"}'` }]);
    await expect(h.call('thread/start', {})).rejects.toThrow(/^blocked by hook 'gatekeeper' at PreSessionStart: no new sessions today$/);
    expect((await h.call('thread/list', {})).data).toEqual([]);
  });

  it('a hook that exits 2 refuses thread/resume with its stderr; a startup-only matcher lets start through', async () => {
    const h = hooked([
      { event: 'SessionStart', name: 'no-resume', matcher: '^resume$', script: `cat >/dev/null\necho 'resuming is off' >&2\nexit 2` },
    ]);
    const { thread } = await h.call('thread/start', {});
    await expect(h.call('thread/resume', { threadId: thread.id })).rejects.toThrow(
      /^blocked by hook 'no-resume' at PreSessionStart: resuming is off$/,
    );
    const blocked = h.hookRuns('hook/completed').find((n) => n.run.status === 'blocked');
    expect(blocked?.threadId).toBe(thread.id);
    expect(blocked?.run.entries).toEqual([{ kind: 'stop', text: 'resuming is off' }]);
    expectCodexShapes({ started: h.hookRuns('hook/started'), completed: h.hookRuns('hook/completed') });
  });

  it('a hook changes the model and adds metadata that later hooks receive', async () => {
    const h = hooked([
      { event: 'SessionStart', name: 'pick-model', script: `cat > "$OUT/session.json"\necho '{"model":"mock-hooked","metadata":{"ticket":"WH-1"}}'` },
      { event: 'UserPromptSubmit', name: 'prompt-log', script: `cat > "$OUT/prompt.json"` },
    ]);
    kit.mock.enqueue([{ type: 'text', text: 'Hello.' }, { type: 'finish' }]);
    const started = await h.call('thread/start', { model: 'asked-for' });
    expect(started.model).toBe('mock-hooked');
    const session = JSON.parse(fs.readFileSync(path.join(h.out, 'session.json'), 'utf8')) as Record<string, unknown>;
    expect(session).toMatchObject({ hook_event_name: 'SessionStart', source: 'startup', model: 'asked-for', cwd: h.home });
    expect((await h.runTurn(started.thread.id, 'hi there')).turn.status).toBe('completed');
    expect(h.boundModels).toEqual(['mock-hooked']);
    const prompt = JSON.parse(fs.readFileSync(path.join(h.out, 'prompt.json'), 'utf8')) as Record<string, unknown>;
    expect(prompt).toMatchObject({ hook_event_name: 'UserPromptSubmit', prompt: 'hi there', thread_id: started.thread.id, metadata: { ticket: 'WH-1' } });
    // Session-start runs are reported once the thread exists.
    const sessionRun = h.hookRuns('hook/completed').find((n) => n.run.eventName === 'sessionStart');
    expect(sessionRun).toMatchObject({ threadId: started.thread.id, turnId: null, run: { status: 'completed', handlerType: 'command' } });
    expectCodexShapes({ started: h.hookRuns('hook/started'), completed: h.hookRuns('hook/completed') });
  });
});

describe('hooks that go wrong are reported and change nothing', () => {
  it('a crashing hook: the thread starts, hook/completed says failed with the exit code and stderr', async () => {
    const h = hooked([{ event: 'SessionStart', name: 'crasher', script: `echo 'boom: missing config' >&2\nexit 3` }]);
    const { thread, model } = await h.call('thread/start', {});
    expect(model).toBe('deepseek-chat');
    const run = h.hookRuns('hook/completed')[0]!;
    expect(run.threadId).toBe(thread.id);
    expect(run.run.status).toBe('failed');
    expect(run.run.statusMessage).toBe("hook 'crasher' exited with code 3: boom: missing config");
    expect(run.run.entries[0]?.kind).toBe('error');
    expect((await h.call('thread/list', {})).data.map((t) => t.id)).toEqual([thread.id]);
    expectCodexShapes({ started: h.hookRuns('hook/started'), completed: h.hookRuns('hook/completed') });
  });

  it('a hook printing garbage: failed, quoted, and its output is not taken as an answer', async () => {
    const h = hooked([{ event: 'SessionStart', name: 'chatty', script: `cat >/dev/null\necho 'model=evil, not json'` }]);
    const { model } = await h.call('thread/start', {});
    expect(model).toBe('deepseek-chat');
    const run = h.hookRuns('hook/completed')[0]!.run;
    expect(run.status).toBe('failed');
    expect(run.statusMessage).toBe("hook 'chatty' printed something that is not JSON: model=evil, not json");
  });

  it('a slow hook is killed at its timeout and reported; the tool call goes on', async () => {
    const h = hooked([
      { event: 'PreToolUse', name: 'sleepy', timeoutSec: 1, script: `echo $$ > "$OUT/pid"\nsleep 60` },
    ]);
    fs.writeFileSync(path.join(h.home, 'notes.txt'), 'the word is heron');
    kit.mock.enqueue(
      [{ type: 'toolCalls', calls: [{ id: 'call_1', name: 'read_file', arguments: '{"path":"notes.txt"}' }] }, { type: 'finish' }],
      [{ type: 'text', text: 'Done.' }, { type: 'finish' }],
    );
    const { thread } = await h.call('thread/start', {});
    await h.call('turn/start', { threadId: thread.id, input: text('read it') });
    const run = (await h.completedRun('preToolUse')).run;
    expect(run.status).toBe('failed');
    expect(run.statusMessage).toBe("hook 'sleepy' timed out after 1 s and was stopped");
    expect((await h.completed()).status).toBe('completed');
    const pid = Number(fs.readFileSync(path.join(h.out, 'pid'), 'utf8'));
    expect(() => process.kill(pid, 0)).toThrow();
    const { items } = await h.call('thread/read', { threadId: thread.id });
    expect(items.find((i) => i.type === 'dynamicToolCall')).toMatchObject({ status: 'completed', success: true });
    expectCodexShapes({ started: h.hookRuns('hook/started'), completed: h.hookRuns('hook/completed') });
  }, 60_000);
});

describe('interrupts and approvals', () => {
  it('interrupting a turn stops its running hook (status stopped); the Stop hook still hears "interrupted"', async () => {
    const h = hooked([
      { event: 'PreToolUse', name: 'slow-check', timeoutSec: 120, script: `echo $$ > "$OUT/pid"\nsleep 60` },
      { event: 'Stop', name: 'ended', script: `cat > "$OUT/stop.json"` },
    ]);
    kit.mock.enqueue([{ type: 'toolCalls', calls: [{ id: 'call_1', name: 'list_directory', arguments: '{"path":"."}' }] }, { type: 'finish' }]);
    const { thread } = await h.call('thread/start', {});
    const { turn } = await h.call('turn/start', { threadId: thread.id, input: text('look around') });
    await new Promise<void>((resolve) => {
      const check = () => fs.existsSync(path.join(h.out, 'pid'));
      if (check()) return resolve();
      const timer = setInterval(() => check() && (clearInterval(timer), resolve()), 20);
    });
    await h.call('turn/interrupt', { threadId: thread.id, turnId: turn.id });
    expect((await h.completed()).status).toBe('interrupted');
    const run = (await h.completedRun('preToolUse')).run;
    expect(run.status).toBe('stopped');
    expect(run.statusMessage).toBe("hook 'slow-check' was stopped: the turn was interrupted");
    const pid = Number(fs.readFileSync(path.join(h.out, 'pid'), 'utf8'));
    expect(() => process.kill(pid, 0)).toThrow();
    await h.completedRun('stop');
    expect(JSON.parse(fs.readFileSync(path.join(h.out, 'stop.json'), 'utf8'))).toMatchObject({ status: 'interrupted' });
    expectCodexShapes({ started: h.hookRuns('hook/started'), completed: h.hookRuns('hook/completed') });
  }, 60_000);

  it('approval hooks (for the approvals code): a PermissionRequest hook may decline a request and hears the answer', async () => {
    const h = hooked([
      {
        event: 'PermissionRequest',
        name: 'no-rm',
        script: `input=$(cat)\necho "$input" >> "$OUT/permission.jsonl"\ncase "$input" in *'"phase":"requested"'*'rm -rf'*) echo '{"decision":"block","reason":"never rm -rf"}';; esac`,
      },
    ]);
    const { thread } = await h.call('thread/start', {});
    const context = { threadId: thread.id, turnId: null, cwd: h.home, ephemeral: false };
    const risky = { requestId: 'r1', toolName: 'exec_command', command: 'rm -rf build', reason: 'deletes files' };
    expect(await h.runtime.services.hooks.approvalRequested(context, risky)).toEqual({ hookName: 'no-rm', phase: 'PermissionRequest', message: 'never rm -rf' });
    expect(await h.runtime.services.hooks.approvalRequested(context, { ...risky, requestId: 'r2', command: 'ls' })).toBeNull();
    await h.runtime.services.hooks.approvalAnswered(context, { ...risky, requestId: 'r2', command: 'ls' }, 'accept');
    const lines = fs.readFileSync(path.join(h.out, 'permission.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => [l['phase'], l['request_id'], l['decision'] ?? null])).toEqual([
      ['requested', 'r1', null],
      ['requested', 'r2', null],
      ['answered', 'r2', 'accept'],
    ]);
    await h.runtime.events.announced();
    expect(h.hookRuns('hook/completed').map((n) => [n.run.eventName, n.run.status])).toEqual([
      ['permissionRequest', 'blocked'],
      ['permissionRequest', 'completed'],
      ['permissionRequest', 'completed'],
    ]);
  });

  it('a PermissionRequest hook declines a command the agent asked to run before the person is asked', async () => {
    const h = hooked([
      {
        event: 'PermissionRequest',
        name: 'no-touch',
        matcher: '^exec_command$',
        script: `input=$(cat)\necho "$input" >> "$OUT/permission.jsonl"\ncase "$input" in *'"phase":"requested"'*) echo '{"decision":"block","reason":"no new files today"}';; esac`,
      },
    ]);
    kit.mock.enqueue(
      [{ type: 'toolCalls', calls: [{ id: 'call_1', name: 'exec_command', arguments: '{"cmd":"touch made.txt"}' }] }, { type: 'finish' }],
      [{ type: 'text', text: 'Understood.' }, { type: 'finish' }],
    );
    const before = kit.mock.requests.length;
    const { thread } = await h.call('thread/start', { approvalPolicy: 'untrusted' });
    expect((await h.runTurn(thread.id, 'make a file')).turn.status).toBe('completed');
    expect(JSON.stringify(kit.mock.requests[before + 1]!.body)).toContain("blocked by hook 'no-touch' at PermissionRequest: no new files today");
    expect(fs.existsSync(path.join(h.home, 'made.txt'))).toBe(false);
    expect((await h.call('approval/list', {})).data).toEqual([]);
    const { items } = await h.call('thread/read', { threadId: thread.id });
    expect(items.find((i) => i.type === 'commandExecution')).toMatchObject({ status: 'declined' });
    const lines = fs.readFileSync(path.join(h.out, 'permission.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => [l['phase'], l['command'], l['decision'] ?? null])).toEqual([
      ['requested', 'touch made.txt', null],
      ['answered', 'touch made.txt', 'decline'],
    ]);
  });
  it('a PermissionRequest hook hears a command request and the person’s answer, in order, with the decision', async () => {
    const h = hooked([
      { event: 'PermissionRequest', name: 'audit', matcher: '^exec_command$', script: `cat >> "$OUT/permission.jsonl"\necho >> "$OUT/permission.jsonl"` },
    ]);
    kit.mock.enqueue(
      [{ type: 'toolCalls', calls: [{ id: 'call_1', name: 'exec_command', arguments: '{"cmd":"touch approved.txt"}' }] }, { type: 'finish' }],
      [{ type: 'text', text: 'Made it.' }, { type: 'finish' }],
    );
    const { thread } = await h.call('thread/start', { approvalPolicy: 'untrusted', sandbox: 'danger-full-access' });
    const { turn } = await h.call('turn/start', { threadId: thread.id, input: text('make a file') });
    // The request reaches the person only after its hook ran.
    const waiting = await waitUntil(
      async () => {
        const { data } = await h.call('approval/list', {});
        return data.length > 0 && data;
      },
      { what: 'the approval request' },
    );
    const requested = h.hookRuns('hook/completed').filter((n) => n.run.eventName === 'permissionRequest');
    expect(requested.map((n) => [n.turnId, n.run.status])).toEqual([[turn.id, 'completed']]);
    await h.call('approval/answer', { requestId: waiting[0]!.requestId, decision: 'acceptForSession' });
    expect((await h.completed()).status).toBe('completed');
    expect(fs.existsSync(path.join(h.home, 'approved.txt'))).toBe(true);
    const lines = fs.readFileSync(path.join(h.out, 'permission.jsonl'), 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => [l['hook_event_name'], l['phase'], l['tool_name'], l['command'], l['decision'] ?? null, l['thread_id']])).toEqual([
      ['PermissionRequest', 'requested', 'exec_command', 'touch approved.txt', null, thread.id],
      ['PermissionRequest', 'answered', 'exec_command', 'touch approved.txt', 'acceptForSession', thread.id],
    ]);
    expect(lines[0]!['request_id']).toBe(lines[1]!['request_id']);

    // A request whose turn stops first is heard as ended: nothing waits unseen, for hooks either.
    kit.mock.enqueue([{ type: 'toolCalls', calls: [{ id: 'call_2', name: 'exec_command', arguments: '{"cmd":"touch never.txt"}' }] }, { type: 'finish' }]);
    const second = (await h.call('turn/start', { threadId: thread.id, input: text('another file') })).turn;
    await waitUntil(async () => (await h.call('approval/list', {})).data.length > 0, { what: 'the second approval request' });
    await h.call('turn/interrupt', { threadId: thread.id, turnId: second.id });
    await h.until("the second turn's second hook run", () => h.hookRuns('hook/completed').filter((n) => n.turnId === second.id && n.run.status === 'completed').at(1));
    const after = fs.readFileSync(path.join(h.out, 'permission.jsonl'), 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(after.slice(2).map((l) => [l['phase'], l['command'], l['decision'] ?? null])).toEqual([
      ['requested', 'touch never.txt', null],
      ['answered', 'touch never.txt', 'ended'],
    ]);
    expect(fs.existsSync(path.join(h.home, 'never.txt'))).toBe(false);
    expectCodexShapes({ started: h.hookRuns('hook/started'), completed: h.hookRuns('hook/completed') });
  }, 60_000);
});

describe('tool and turn hooks', () => {
  it('a PreToolUse block reaches the model as the tool result; PostToolUse does not run for it', async () => {
    const h = hooked([
      { event: 'PreToolUse', name: 'guard', matcher: '^read_file$', script: `cat > "$OUT/pre.json"\necho '{"decision":"block","reason":"secrets live here"}'` },
      { event: 'PostToolUse', name: 'after', script: `cat > "$OUT/post.json"` },
    ]);
    fs.writeFileSync(path.join(h.home, 'notes.txt'), 'the word is heron');
    kit.mock.enqueue(
      [{ type: 'toolCalls', calls: [{ id: 'call_1', name: 'read_file', arguments: '{"path":"notes.txt"}' }] }, { type: 'finish' }],
      [{ type: 'text', text: 'I may not read it.' }, { type: 'finish' }],
    );
    const before = kit.mock.requests.length;
    const { thread } = await h.call('thread/start', {});
    expect((await h.runTurn(thread.id, 'read notes.txt')).turn.status).toBe('completed');
    const secondRequest = JSON.stringify(kit.mock.requests[before + 1]!.body);
    expect(secondRequest).toContain("blocked by hook 'guard' at PreToolUse: secrets live here");
    expect(secondRequest).not.toContain('heron');
    const pre = JSON.parse(fs.readFileSync(path.join(h.out, 'pre.json'), 'utf8')) as Record<string, unknown>;
    expect(pre).toMatchObject({ hook_event_name: 'PreToolUse', tool_name: 'read_file', tool_use_id: 'call_1', tool_input: { path: 'notes.txt' } });
    expect(fs.existsSync(path.join(h.out, 'post.json'))).toBe(false);
    const { items } = await h.call('thread/read', { threadId: thread.id });
    expect(items.find((i) => i.type === 'dynamicToolCall')).toMatchObject({ status: 'failed', success: false });
    const blocked = h.hookRuns('hook/completed').find((n) => n.run.eventName === 'preToolUse')!;
    expect(blocked.run.status).toBe('blocked');
    expect(blocked.turnId).not.toBeNull();
    expectCodexShapes({ started: h.hookRuns('hook/started'), completed: h.hookRuns('hook/completed') });
  });

  it('a PreToolUse hook may change the arguments: the changed call runs (checked again), PostToolUse and the item show it', async () => {
    const h = hooked([
      {
        event: 'PreToolUse',
        name: 'redirect',
        matcher: '^read_file$',
        script: `cat >/dev/null\necho '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"path":"public.txt"}}}'`,
      },
      { event: 'PreToolUse', name: 'breaker', matcher: '^list_directory$', script: `cat >/dev/null\necho '{"hookSpecificOutput":{"updatedInput":{"path":7}}}'` },
      { event: 'PostToolUse', name: 'after', script: `cat >> "$OUT/post.jsonl"\necho >> "$OUT/post.jsonl"` },
    ]);
    fs.writeFileSync(path.join(h.home, 'secret.txt'), 'the word is heron');
    fs.writeFileSync(path.join(h.home, 'public.txt'), 'the word is wren');
    kit.mock.enqueue(
      [
        {
          type: 'toolCalls',
          calls: [
            { id: 'call_read', name: 'read_file', arguments: '{"path":"secret.txt"}' },
            { id: 'call_list', name: 'list_directory', arguments: '{}' },
          ],
        },
        { type: 'finish' },
      ],
      [{ type: 'text', text: 'Wren.' }, { type: 'finish' }],
    );
    const before = kit.mock.requests.length;
    const { thread } = await h.call('thread/start', {});
    expect((await h.runTurn(thread.id, 'read secret.txt')).turn.status).toBe('completed');
    const results = JSON.stringify(kit.mock.requests[before + 1]!.body);
    expect(results).toContain('the word is wren');
    expect(results).not.toContain('heron');
    expect(results).toContain('Invalid arguments for list_directory as a PreToolUse hook changed them: path: ');
    const post = fs.readFileSync(path.join(h.out, 'post.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(post.map((l) => [l['tool_name'], l['tool_input']])).toEqual([['read_file', { path: 'public.txt' }]]);
    const { items } = await h.call('thread/read', { threadId: thread.id });
    expect(items.filter((i) => i.type === 'dynamicToolCall').map((i) => [i.tool, i.status, i.arguments])).toEqual([
      ['read_file', 'completed', { path: 'public.txt' }],
      ['list_directory', 'failed', {}],
    ]);
  });

  it('PostToolUse sees the result; Stop hears how the turn ended; a Stop hook cannot block', async () => {
    const h = hooked([
      { event: 'PostToolUse', name: 'after', script: `cat > "$OUT/post.json"` },
      { event: 'Stop', name: 'ended', script: `cat > "$OUT/stop.json"\necho '{"decision":"block","reason":"keep going"}'` },
    ]);
    fs.writeFileSync(path.join(h.home, 'notes.txt'), 'the word is heron');
    kit.mock.enqueue(
      [{ type: 'toolCalls', calls: [{ id: 'call_1', name: 'read_file', arguments: '{"path":"notes.txt"}' }] }, { type: 'finish' }],
      [{ type: 'text', text: 'Heron.' }, { type: 'finish' }],
    );
    const { thread } = await h.call('thread/start', {});
    expect((await h.runTurn(thread.id, 'read notes.txt')).turn.status).toBe('completed');
    const post = JSON.parse(fs.readFileSync(path.join(h.out, 'post.json'), 'utf8')) as { tool_response: { success: boolean; output: string } };
    expect(post.tool_response.success).toBe(true);
    expect(post.tool_response.output).toContain('heron');
    const stopRun = (await h.completedRun('stop')).run;
    expect(stopRun.status).toBe('completed');
    expect(stopRun.entries).toEqual([{ kind: 'warning', text: 'Stop hooks cannot block; ignored: keep going' }]);
    expect(JSON.parse(fs.readFileSync(path.join(h.out, 'stop.json'), 'utf8'))).toMatchObject({ hook_event_name: 'Stop', status: 'completed' });
    expectCodexShapes({ started: h.hookRuns('hook/started'), completed: h.hookRuns('hook/completed') });
  });
});

describe('command hooks', () => {
  it('PostToolUse hooks run for exec_command: a real script hears the command and what the model was told', async () => {
    const h = hooked([{ event: 'PostToolUse', name: 'audit', matcher: '^exec_command$', script: `cat > "$OUT/post.json"` }]);
    kit.mock.enqueue(
      [{ type: 'toolCalls', calls: [{ id: 'call_cmd', name: 'exec_command', arguments: JSON.stringify({ cmd: 'echo kestrel' }) }] }, { type: 'finish' }],
      [{ type: 'text', text: 'It printed kestrel.' }, { type: 'finish' }],
    );
    const { thread } = await h.call('thread/start', { sandbox: 'danger-full-access' });
    expect((await h.runTurn(thread.id, 'say kestrel')).turn.status).toBe('completed');
    const run = (await h.completedRun('postToolUse')).run;
    expect(run.status).toBe('completed');
    const post = JSON.parse(fs.readFileSync(path.join(h.out, 'post.json'), 'utf8')) as Record<string, unknown>;
    expect(post).toMatchObject({ hook_event_name: 'PostToolUse', tool_name: 'exec_command', tool_use_id: 'call_cmd', tool_input: { cmd: 'echo kestrel' } });
    const response = post['tool_response'] as { success: boolean; output: string };
    expect(response.success).toBe(true);
    expect(response.output).toMatch(/^Exit code: 0\n[\s\S]*kestrel/);
    expectCodexShapes({ started: h.hookRuns('hook/started'), completed: h.hookRuns('hook/completed') });
  });

  it('a command the exec policy forbids still reaches PostToolUse, as a failed result saying why', async () => {
    const h = hooked([{ event: 'PostToolUse', name: 'audit', script: `cat > "$OUT/post.json"` }]);
    kit.mock.enqueue(
      [{ type: 'toolCalls', calls: [{ id: 'call_rm', name: 'exec_command', arguments: JSON.stringify({ cmd: 'rm -rf /' }) }] }, { type: 'finish' }],
      [{ type: 'text', text: 'Refused.' }, { type: 'finish' }],
    );
    const { thread } = await h.call('thread/start', { sandbox: 'danger-full-access' });
    expect((await h.runTurn(thread.id, 'wipe it')).turn.status).toBe('completed');
    await h.completedRun('postToolUse');
    const post = JSON.parse(fs.readFileSync(path.join(h.out, 'post.json'), 'utf8')) as { tool_response: { success: boolean; output: string } };
    expect(post.tool_response).toMatchObject({ success: false });
    expect(post.tool_response.output).toMatch(/^Not run: the exec policy forbids it/);
  });
});

describe('MCP tool calls', () => {
  it('a PreToolUse hook blocks one MCP tool by its model name; PostToolUse sees another one complete', async () => {
    const h = hooked(
      [
        { event: 'PreToolUse', name: 'no-echo', matcher: '^mcp__everything__echo$', script: `cat >/dev/null\necho '{"decision":"block","reason":"echo is off"}'` },
        { event: 'PostToolUse', name: 'after', matcher: '^mcp__', script: `cat > "$OUT/post.json"` },
      ],
      stdioServerToml('everything', everythingServerScript),
    );
    await new Promise<void>((resolve) => {
      const off = h.runtime.events.subscribe((n) => {
        if (n.method === 'mcpServer/startupStatus/completed') {
          off();
          resolve();
        }
      });
    });
    kit.mock.enqueue(
      [
        {
          type: 'toolCalls',
          calls: [
            { id: 'c1', name: 'mcp__everything__echo', arguments: '{"message":"hello"}' },
            { id: 'c2', name: 'mcp__everything__get-sum', arguments: '{"a":1,"b":2}' },
          ],
        },
        { type: 'finish' },
      ],
      [{ type: 'text', text: 'Done.' }, { type: 'finish' }],
    );
    const before = kit.mock.requests.length;
    const { thread } = await h.call('thread/start', {});
    expect((await h.runTurn(thread.id, 'use the tools')).turn.status).toBe('completed');
    expect(JSON.stringify(kit.mock.requests[before + 1]!.body)).toContain("blocked by hook 'no-echo' at PreToolUse: echo is off");
    const { items } = await h.call('thread/read', { threadId: thread.id });
    const calls = items.flatMap((i) => (i.type === 'mcpToolCall' ? [i] : []));
    expect(calls.map((c) => [c.tool, c.status])).toEqual([
      ['echo', 'failed'],
      ['get-sum', 'completed'],
    ]);
    const post = JSON.parse(fs.readFileSync(path.join(h.out, 'post.json'), 'utf8')) as { tool_name: string; tool_response: { success: boolean; output: string } };
    expect(post.tool_name).toBe('mcp__everything__get-sum');
    expect(post.tool_response).toMatchObject({ success: true, output: expect.stringContaining('3') });
    expectCodexShapes({ started: h.hookRuns('hook/started'), completed: h.hookRuns('hook/completed') });
  }, 60_000);
});

describe('every tool call, one wrapping', () => {
  const clientTool = {
    type: 'namespace' as const,
    name: 'desk',
    description: 'Front desk tools',
    tools: [{ type: 'function' as const, name: 'room_of', description: 'The room of a guest.', inputSchema: { type: 'object', properties: { guest: { type: 'string' } }, required: ['guest'] } }],
  };
  const bothTools = (suffix: string) => [
    {
      type: 'toolCalls' as const,
      calls: [
        { id: `mcp_${suffix}`, name: 'mcp__everything__get-sum', arguments: '{"a":20,"b":22}' },
        { id: `client_${suffix}`, name: 'desk__room_of', arguments: '{"guest":"Ada"}' },
      ],
    },
    { type: 'finish' as const },
  ];

  it('hooks wrap an MCP tool and a client tool alike: PreToolUse sees both and may block both, PostToolUse hears both results', async () => {
    const h = hooked(
      [
        {
          event: 'PreToolUse',
          name: 'gate',
          script: `cat >> "$OUT/pre.jsonl"\necho >> "$OUT/pre.jsonl"\nif [ -e "$OUT/closed" ]; then echo '{"decision":"block","reason":"the desk is closed"}'; fi`,
        },
        { event: 'PostToolUse', name: 'audit', script: `cat >> "$OUT/post.jsonl"\necho >> "$OUT/post.jsonl"` },
      ],
      stdioServerToml('everything', everythingServerScript),
    );
    await h.waitFor((n) => n.method === 'mcpServer/startupStatus/completed', 0, 'the MCP server');
    const asked: string[] = [];
    // The client that starts the thread answers its tool calls, as a carrier's connection would.
    h.answerRequests('t', (method) => method === 'item/tool/call', (request, answer) => {
      const params = request.params as { callId: string; arguments: { guest: string } };
      asked.push(params.callId);
      answer({ success: true, contentItems: [{ type: 'inputText', text: `${String(params.arguments.guest)} is in room 12` }] });
    });
    const lines = (file: string) =>
      fs.readFileSync(path.join(h.out, file), 'utf8').split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as Record<string, unknown>);
    const { thread } = await h.call('thread/start', { dynamicTools: [clientTool] });

    kit.mock.enqueue(bothTools('open'), [{ type: 'text', text: 'Room 12, sum 42.' }, { type: 'finish' }]);
    expect((await h.runTurn(thread.id, 'where is Ada')).turn.status).toBe('completed');
    expect(lines('pre.jsonl').map((l) => [l['tool_name'], l['tool_use_id'], l['tool_input']])).toEqual([
      ['mcp__everything__get-sum', 'mcp_open', { a: 20, b: 22 }],
      ['desk__room_of', 'client_open', { guest: 'Ada' }],
    ]);
    expect(lines('post.jsonl').map((l) => [l['tool_name'], l['tool_response']])).toEqual([
      ['mcp__everything__get-sum', { success: true, output: expect.stringContaining('42') }],
      ['desk__room_of', { success: true, output: 'Ada is in room 12' }],
    ]);
    expect(asked).toEqual(['client_open']);

    fs.writeFileSync(path.join(h.out, 'closed'), '');
    const before = kit.mock.requests.length;
    const seenBefore = h.seen.length;
    kit.mock.enqueue(bothTools('closed'), [{ type: 'text', text: 'The desk is closed.' }, { type: 'finish' }]);
    await h.call('turn/start', { threadId: thread.id, input: text('and now') });
    await h.turnDone(seenBefore);
    const results = JSON.stringify(kit.mock.requests[before + 1]!.body);
    expect(results.split("blocked by hook 'gate' at PreToolUse: the desk is closed").length - 1).toBe(2);
    expect(asked).toEqual(['client_open']);
    expect(lines('post.jsonl')).toHaveLength(2);
    const { items } = await h.call('thread/read', { threadId: thread.id });
    const secondTurn = items.filter((i) => i.type === 'mcpToolCall' || i.type === 'dynamicToolCall').slice(2);
    expect(secondTurn.map((i) => [i.type, i.status])).toEqual([
      ['mcpToolCall', 'failed'],
      ['dynamicToolCall', 'failed'],
    ]);
    expectCodexShapes({ started: h.hookRuns('hook/started'), completed: h.hookRuns('hook/completed') });
  }, 90_000);

  it('a call whose arguments fail the schema: the model reads why, no hook runs, the turn goes on', async () => {
    const h = hooked([
      { event: 'PreToolUse', name: 'gate', script: `cat > "$OUT/pre.json"` },
      { event: 'PostToolUse', name: 'audit', script: `cat > "$OUT/post.json"` },
    ]);
    kit.mock.enqueue(
      [
        {
          type: 'toolCalls',
          calls: [
            { id: 'bad_read', name: 'read_file', arguments: '{"path":7}' },
            { id: 'bad_cmd', name: 'exec_command', arguments: '{"cmd":"ls","colour":"blue"}' },
          ],
        },
        { type: 'finish' },
      ],
      [{ type: 'text', text: 'Let me fix that.' }, { type: 'finish' }],
    );
    const before = kit.mock.requests.length;
    const { thread } = await h.call('thread/start', {});
    expect((await h.runTurn(thread.id, 'look around')).turn.status).toBe('completed');
    const results = JSON.stringify(kit.mock.requests[before + 1]!.body);
    expect(results).toContain('Invalid arguments for read_file: path: ');
    expect(results).toContain('Invalid arguments for exec_command: (arguments): Unrecognized key');
    expect(fs.existsSync(path.join(h.out, 'pre.json'))).toBe(false);
    expect(fs.existsSync(path.join(h.out, 'post.json'))).toBe(false);
    const { items } = await h.call('thread/read', { threadId: thread.id });
    expect(items.filter((i) => i.type === 'dynamicToolCall' || i.type === 'commandExecution').map((i) => [i.type, i.status])).toEqual([
      ['dynamicToolCall', 'failed'],
      ['commandExecution', 'failed'],
    ]);
  }, 60_000);
});

describe('hooks/list', () => {
  it('lists the configured hooks in Codex shape and names the rejected ones', async () => {
    const h = hooked(
      [
        { event: 'PreToolUse', name: 'guard', matcher: '^read_file$', timeoutSec: 5, script: 'exit 0' },
        { event: 'Stop', name: 'ended', script: 'exit 0' },
      ],
      '[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ncommand = 42\n',
    );
    const result = await h.call('hooks/list', { cwds: [h.home] });
    expectCodex('HooksListResponse', result);
    const [entry] = result.data;
    expect(entry?.cwd).toBe(h.home);
    expect(entry?.hooks.map((hook) => [hook.eventName, hook.matcher, hook.timeoutSec])).toEqual([
      ['preToolUse', '^read_file$', 5],
      ['stop', null, 60],
    ]);
    expect(entry?.errors).toEqual([{ path: 'hooks.Stop.1.hooks.0.command', message: expect.any(String) }]);
    const { thread } = await h.call('thread/start', {});
    const forThread = await h.call('hooks/list', { threadId: thread.id });
    expect(forThread.data[0]?.cwd).toBe(h.home);
    expect(forThread.data[0]?.hooks).toHaveLength(2);
  });
});
