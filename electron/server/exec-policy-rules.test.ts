import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { NotificationMessage } from '../../shared/protocol/index.js';
import type { ExecPolicyRuleProblem } from '../../shared/protocol/methods/exec-policy.js';
import type { ThreadSandboxState } from '../../shared/protocol/methods/thread-sandbox.js';
import {
  approvalRequest,
  commandItem,
  execCall,
  mockModelConfig,
  textReply,
  turnEnd,
} from '../../test-support/agent-commands.js';
import type { ProtocolPeer } from '../../test-support/protocol-peer.js';
import { detectSandbox } from '../exec/sandbox.js';
import { useServedAgentHomes } from '../../test-support/served-agent-home.js';

/**
 * The rules editor's methods, the rule that decided each command (on the
 * item and the approval request, checked against Codex's schema), rules
 * files reloaded when they change on disk, and a thread's sandbox settings,
 * over a real WebSocket to `wheelhouse serve`.
 */
const served = useServedAgentHomes();

async function setup(): Promise<{ peer: ProtocolPeer; home: string; project: string }> {
  const { home, project } = served.makeHome('wheelhouse-rules-');
  const server = await served.serve(home);
  const peer = await served.client(server, 'rules-test');
  return { peer, home, project };
}

const say = (text: string) => [{ type: 'text' as const, text }];

/** Waits (reload by reload) until the policy decides `command` as `decision`. */
async function untilDecided(peer: ProtocolPeer, command: string, decision: 'allow' | 'prompt' | 'forbidden') {
  for (;;) {
    const result = await peer.call('execPolicy/check', { command });
    if (result.decision === decision) return result;
    await rulesChanged(peer, () => true);
  }
}

async function rulesChanged(peer: ProtocolPeer, matches: (problems: ExecPolicyRuleProblem[]) => boolean): Promise<ExecPolicyRuleProblem[]> {
  const received = await peer.inbox.take(
    (r) => r.kind === 'notification' && r.message.method === 'execPolicy/rules/changed' && matches((r.message.params as { problems: ExecPolicyRuleProblem[] }).problems),
    'execPolicy/rules/changed',
  );
  return ((received.message as NotificationMessage).params as { problems: ExecPolicyRuleProblem[] }).problems;
}

describe('exec-policy rules', () => {
  it('a rule added in the editor decides the next command; the item and the approval request name it', async () => {
    const { peer, home, project } = await setup();
    const defaultFile = path.join(home, 'rules', 'default.rules');
    const listed = await peer.call('execPolicy/rules/write', {
      change: { type: 'add', rule: { pattern: ['touch', 'made.txt'], decision: 'allow', justification: 'scratch file' } },
    });
    expect(listed.rules).toEqual([
      { source: `${defaultFile}:1`, file: defaultFile, line: 1, pattern: ['touch', 'made.txt'], decision: 'allow', justification: 'scratch file', project: null },
    ]);
    expect(listed.builtins.map((rule) => rule.source)).toContain('builtin:rm-root');
    expect(fs.statSync(defaultFile).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(defaultFile, 'utf8')).toBe('prefix_rule(pattern = ["touch", "made.txt"], decision = "allow", justification = "scratch file")\n');

    // Untrusted would ask for `touch`: the rule lets it run without a question.
    const { thread } = await peer.call('thread/start', { cwd: project, approvalPolicy: 'untrusted', sandbox: 'danger-full-access' });
    // `&& echo`: node-pty reports a pty leader that exits silently right after closing its output (coreutils) as
    // killed by SIGHUP now and then (see the report); a shell that outlives touch keeps the exit status honest.
    served.mock.enqueue(execCall('touch made.txt && echo made'), textReply('Made.'));
    await peer.call('turn/start', { threadId: thread.id, input: say('make it') });
    const done = await commandItem(peer, 'item/completed');
    // The whole item on failure: its output says why a command did not complete.
    expect({ status: done.status, output: done.aggregatedOutput, exitCode: done.exitCode, ran: fs.existsSync(path.join(project, 'made.txt')) }).toEqual({ status: 'completed', output: 'made\r\n', exitCode: 0, ran: true });
    expect(done.decidedBy).toMatchObject({ kind: 'rule', source: `${defaultFile}:1`, decision: 'allow', justification: 'scratch file' });
    expect(done.decidedBy?.label).toBe('Runs without asking: your rule “touch made.txt” (default.rules, line 1).');
    expect(fs.existsSync(path.join(project, 'made.txt'))).toBe(true);
    expect(await turnEnd(peer)).toMatchObject({ status: 'completed' });

    // A prompt rule with alternatives asks, and the approval request says which rule asked.
    await peer.call('execPolicy/rules/write', {
      change: { type: 'add', rule: { pattern: ['git', ['push', 'fetch']], decision: 'prompt', justification: 'talks to the remote' } },
    });
    served.mock.enqueue(execCall('git push origin main'), textReply('Not pushed.'));
    await peer.call('turn/start', { threadId: thread.id, input: say('push') });
    const request = await approvalRequest(peer);
    const params = request.params as { reason: string; decidedBy: { kind: string; source: string; label: string } };
    expect(params.decidedBy).toMatchObject({ kind: 'rule', source: `${defaultFile}:2` });
    expect(params.decidedBy.label).toBe('Asks first: your rule “git push|fetch” (default.rules, line 2).');
    expect(params.reason).toMatch(/^talks to the remote/);
    peer.sendRaw(JSON.stringify({ id: request.id, result: { decision: 'decline' } }));
    expect((await commandItem(peer, 'item/completed')).decidedBy?.source).toBe(`${defaultFile}:2`);
    expect(await turnEnd(peer)).toMatchObject({ status: 'completed' });

    // The test box: decision and the rule behind it, nothing run.
    const fetch = await peer.call('execPolicy/check', { command: 'git fetch && ls', threadId: thread.id });
    expect(fetch).toMatchObject({ decision: 'prompt', approvalPolicy: 'untrusted', sandbox: 'danger-full-access', decidedBy: { kind: 'rule', line: 2 } });
    expect(fetch.commands.map((c) => [c.command.join(' '), c.decision, c.source])).toEqual([
      ['git fetch', 'prompt', `${defaultFile}:2`],
      ['ls', 'allow', 'builtin:read-only'],
    ]);
    expect((await peer.call('execPolicy/check', { command: 'rm -rf /' })).decidedBy).toMatchObject({ kind: 'builtin', source: 'builtin:rm-root' });
    expect((await peer.call('execPolicy/check', { command: 'frobnicate --now' })).decidedBy).toMatchObject({
      kind: 'approvalPolicy',
      source: 'approvalPolicy:untrusted',
      label: 'No rule matched: this thread asks before anything not known to be safe.',
    });

    // Edit the rule in place (comments around it stay), then delete it.
    // Someone edited the file meanwhile: the editor works from the file itself, never a stale copy.
    fs.writeFileSync(defaultFile, `# mine\n${fs.readFileSync(defaultFile, 'utf8')}`);
    await expect(
      peer.call('execPolicy/rules/write', { change: { type: 'update', at: { file: defaultFile, line: 1 }, rule: { pattern: ['git', 'push'], decision: 'forbidden' } } }),
    ).rejects.toThrow(/no rule starts on line 1 .* any more \(the file changed\)/);
    const updated = await peer.call('execPolicy/rules/write', {
      change: { type: 'update', at: { file: defaultFile, line: 3 }, rule: { pattern: ['git', 'push'], decision: 'forbidden', justification: 'never push' } },
    });
    expect(updated.rules.map((rule) => [rule.line, rule.decision])).toEqual([[2, 'allow'], [3, 'forbidden']]);
    expect((await peer.call('execPolicy/check', { command: 'git push' })).decision).toBe('forbidden');
    await peer.call('execPolicy/rules/write', { change: { type: 'delete', at: { file: defaultFile, line: 3 } } });
    expect(fs.readFileSync(defaultFile, 'utf8')).toBe('# mine\nprefix_rule(pattern = ["touch", "made.txt"], decision = "allow", justification = "scratch file")\n');
    expect((await peer.call('execPolicy/check', { command: 'git push' })).decidedBy.kind).toBe('approvalPolicy');
  });

  it('refuses a bad rule with a clear error and writes nothing', async () => {
    const { peer, home } = await setup();
    const defaultFile = path.join(home, 'rules', 'default.rules');
    const attempts: Array<[unknown, RegExp]> = [
      [{ pattern: [], decision: 'allow' }, /a rule needs at least one pattern word/],
      [{ pattern: ['git', ''], decision: 'allow' }, /a pattern word cannot be empty/],
      [{ pattern: ['echo\nrm'], decision: 'allow' }, /control characters or line breaks/],
      [{ pattern: ['ls'], decision: 'sometimes' }, /decision/],
      [{ pattern: [['push', []]], decision: 'allow' }, /.+/],
    ];
    for (const [rule, message] of attempts) {
      const response = await peer.request('execPolicy/rules/write', { change: { type: 'add', rule } });
      expect('error' in response && response.error.code).toBe(-32602);
      expect('error' in response && response.error.message).toMatch(message);
    }
    const outside = await peer.request('execPolicy/rules/write', { change: { type: 'delete', at: { file: path.join(home, 'config.toml'), line: 1 } } });
    expect('error' in outside && outside.error.message).toMatch(/not a rules file of this home/);
    expect(fs.existsSync(defaultFile)).toBe(false);
    expect(fs.readFileSync(path.join(home, 'config.toml'), 'utf8')).toBe(mockModelConfig(served.mock));
  });

  it('reloads a rules file changed on disk; a broken one keeps its last good rules and says where it is broken', async () => {
    const { peer, home } = await setup();
    const teamFile = path.join(home, 'rules', 'team.rules');
    // The first request opens the policy and starts watching the rules folder.
    expect((await peer.call('execPolicy/rules/list', {})).rules).toEqual([]);
    fs.writeFileSync(teamFile, 'prefix_rule(pattern = ["make", "deploy"], decision = "forbidden", justification = "deploys go through CI")\n');
    const forbidden = await untilDecided(peer, 'make deploy', 'forbidden');
    expect(forbidden).toMatchObject({ decision: 'forbidden', reason: 'deploys go through CI', decidedBy: { kind: 'rule', source: `${teamFile}:1` } });

    // A half-finished edit: the forbidden rule stays in force, the problem is reported with line and column.
    fs.writeFileSync(teamFile, '# deploys\nprefix_rule(pattern = ["make", "deploy"], decision = "forbid")\n');
    const problems = await rulesChanged(peer, (list) => list.length > 0);
    expect(problems).toEqual([
      { file: teamFile, line: 2, column: 54, message: 'decision must be "allow", "prompt" or "forbidden"', keptPreviousRules: true },
    ]);
    expect((await peer.call('execPolicy/check', { command: 'make deploy' })).decision).toBe('forbidden');
    expect((await peer.call('execPolicy/rules/list', {})).problems).toEqual(problems);

    fs.writeFileSync(teamFile, 'prefix_rule(pattern = ["make", "deploy"], decision = "allow")\n');
    await untilDecided(peer, 'make deploy', 'allow');
    expect((await peer.call('execPolicy/rules/list', {})).problems).toEqual([]);
  });
});

describe('thread sandbox settings', () => {
  it('reads the sandbox and approval policy in effect; thread/settings/update changes them for the next command', async () => {
    const { peer, project } = await setup();
    const started = await peer.call('thread/start', { cwd: project });
    const { thread } = started;
    const before = await peer.call('thread/sandbox/read', { threadId: thread.id });
    // A Codex client is told what commands really run under, defaults included.
    expect(started.approvalPolicy).toBe('untrusted');
    expect(started.sandbox.type).toBe(before.sandboxAvailable ? 'workspaceWrite' : 'dangerFullAccess');
    expect(before).toMatchObject({ threadId: thread.id, approvalPolicy: 'untrusted', sandboxChosen: false, approvalPolicyChosen: false });
    if (before.sandboxAvailable) {
      expect(before).toMatchObject({ sandbox: 'workspace-write', sandboxKind: 'bubblewrap', summary: 'Workspace write · sandboxed (bubblewrap)' });
    } else {
      expect(before).toMatchObject({ sandbox: 'danger-full-access', summary: 'No sandbox on this machine — commands run with your full access' });
    }

    await peer.call('thread/settings/update', { threadId: thread.id, approvalPolicy: 'never', sandboxPolicy: { type: 'dangerFullAccess' } });
    const changed = await peer.inbox.notification('thread/sandbox/changed');
    const state = changed.params as ThreadSandboxState;
    expect(state).toMatchObject({ threadId: thread.id, sandbox: 'danger-full-access', approvalPolicy: 'never', sandboxChosen: true, approvalPolicyChosen: true });
    expect(await peer.call('thread/sandbox/read', { threadId: thread.id })).toEqual(state);
    expect((await peer.call('thread/read', { threadId: thread.id })).thread).toMatchObject({ sandbox: 'danger-full-access', approvalPolicy: 'never' });

    // `never`: a command no rule covers runs without asking, decided by the approval policy.
    served.mock.enqueue(execCall('touch free.txt && echo done'), textReply('Done.'));
    await peer.call('turn/start', { threadId: thread.id, input: say('go') });
    const done = await commandItem(peer, 'item/completed');
    expect({ status: done.status, output: done.aggregatedOutput }).toEqual({ status: 'completed', output: 'done\r\n' });
    expect(done.decidedBy).toMatchObject({ kind: 'approvalPolicy', label: 'No rule matched: this thread never asks.' });
    expect(await turnEnd(peer)).toMatchObject({ status: 'completed' });

    const refusals: Array<[Record<string, unknown>, RegExp]> = [
      [{ model: 'other-model' }, /changes approvalPolicy and sandboxPolicy only, not: model/],
      [{ sandboxPolicy: { type: 'workspaceWrite', networkAccess: true } }, /network access inside the sandbox/],
      [{ sandboxPolicy: { type: 'workspaceWrite', writableRoots: ['/etc'] } }, /other writableRoots are not supported/],
      [{ approvalPolicy: 'sometimes' }, /approvalPolicy/],
    ];
    for (const [change, message] of refusals) {
      const response = await peer.request('thread/settings/update', { threadId: thread.id, ...change });
      expect('error' in response && response.error.message).toMatch(message);
    }
    expect(await peer.call('thread/sandbox/read', { threadId: thread.id })).toEqual(state);
  });
});

describe('network policy amendments', () => {
  it('a command naming a host asks with a network amendment; allowing it gives that command the network, plain accept does not', async (ctx) => {
    const sandbox = await detectSandbox(process.env['PATH']);
    if (!sandbox.available) ctx.skip(`no sandbox on this machine (${sandbox.reason}): commands always have the network`);
    const site = http.createServer((_request, response) => response.end('hello-from-host'));
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = site.address() as AddressInfo;
      const { peer, project } = await setup();
      const { thread } = await peer.call('thread/start', { cwd: project, approvalPolicy: 'untrusted', sandbox: 'workspace-write' });
      const command = `curl -sS http://127.0.0.1:${port}/`;
      const amendment = { host: '127.0.0.1', action: 'allow' };

      served.mock.enqueue(execCall(command), textReply('Fetched.'));
      await peer.call('turn/start', { threadId: thread.id, input: say('fetch it') });
      const asked = await approvalRequest(peer);
      const params = asked.params as { proposedNetworkPolicyAmendments: unknown; availableDecisions: unknown[] };
      expect(params.proposedNetworkPolicyAmendments).toEqual([amendment]);
      expect(params.availableDecisions).toContainEqual({ applyNetworkPolicyAmendment: { network_policy_amendment: amendment } });
      peer.sendRaw(JSON.stringify({ id: asked.id, result: { decision: { applyNetworkPolicyAmendment: { network_policy_amendment: amendment } } } }));
      const fetched = await commandItem(peer, 'item/completed');
      expect({ status: fetched.status, output: fetched.aggregatedOutput }).toEqual({ status: 'completed', output: 'hello-from-host' });
      expect(await turnEnd(peer)).toMatchObject({ status: 'completed' });

      // Approved without the amendment, the same command runs in the sandbox without network.
      served.mock.enqueue(execCall(command), textReply('No network.'));
      await peer.call('turn/start', { threadId: thread.id, input: say('again') });
      const again = await approvalRequest(peer);
      peer.sendRaw(JSON.stringify({ id: again.id, result: { decision: 'accept' } }));
      const offline = await commandItem(peer, 'item/completed');
      expect(offline.status).toBe('failed');
      expect(offline.aggregatedOutput).not.toContain('hello-from-host');
      expect(await turnEnd(peer)).toMatchObject({ status: 'completed' });

      // Denying the host declines the command.
      served.mock.enqueue(execCall(command), textReply('Understood.'));
      await peer.call('turn/start', { threadId: thread.id, input: say('once more') });
      const third = await approvalRequest(peer);
      const deny = { host: '127.0.0.1', action: 'deny' };
      peer.sendRaw(JSON.stringify({ id: third.id, result: { decision: { applyNetworkPolicyAmendment: { network_policy_amendment: deny } } } }));
      const denied = await commandItem(peer, 'item/completed');
      // The model is told what to do next; a person sees who decided, never those words.
      expect(denied).toMatchObject({
        status: 'declined',
        aggregatedOutput: null,
        modelOutput: 'Not run: the person denied network access to 127.0.0.1. Do not retry it; continue another way or ask them.',
        outcome: { by: 'person', answer: 'deniedNetwork', host: '127.0.0.1' },
      });
      expect(await turnEnd(peer)).toMatchObject({ status: 'completed' });
    } finally {
      site.close();
    }
  });
});
