import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Job, NotificationMessage } from '../../shared/protocol/index.js';
import { approvalRequest, execCall, textReply, toolCallReply } from '../../test-support/agent-commands.js';
import type { ProtocolPeer } from '../../test-support/protocol-peer.js';
import { useServedAgentHomes } from '../../test-support/served-agent-home.js';

/**
 * An agent job over a real WebSocket to `wheelhouse serve`: every message the
 * client sees passes the Codex schema check (wire-conformance) where Codex
 * has the method, and the job's approval reaches the client as Codex's server request.
 */
const served = useServedAgentHomes();

async function jobUpdate(peer: ProtocolPeer, jobId: string, match: (job: Job) => boolean, what: string): Promise<Job> {
  const received = await peer.inbox.take(
    (r) => r.kind === 'notification' && r.message.method === 'job/updated' && (r.message.params as { job: Job }).job.id === jobId && match((r.message.params as { job: Job }).job),
    what,
  );
  return ((received.message as NotificationMessage).params as { job: Job }).job;
}

describe('agent jobs over WebSocket', () => {
  it('wait for approval as a visible job state and a server request; answering lets the goal complete', async () => {
    const { home, project } = served.makeHome('wheelhouse-agent-job-');
    const server = await served.serve(home);
    const peer = await served.client(server, 'job-watcher');
    served.mock.enqueue(execCall('touch by-job.txt'), toolCallReply('update_goal', { status: 'complete' }, 'call_goal'), textReply('All done.'));

    const { job } = await peer.call('job/create', {
      kind: 'agent',
      name: 'Make a file',
      cwd: project,
      objective: 'Create by-job.txt',
      approvalPolicy: 'untrusted',
      sandbox: 'danger-full-access',
      tokenBudget: 50_000,
    });
    expect(job).toMatchObject({ kind: 'agent', name: 'Make a file', agent: { objective: 'Create by-job.txt', approvalPolicy: 'untrusted', tokenBudget: 50_000 } });

    const request = await approvalRequest(peer);
    expect(request.params).toMatchObject({ threadId: job.threadId, command: 'touch by-job.txt' });
    const waiting = await jobUpdate(peer, job.id, (j) => j.agent?.waitingApproval != null, 'the job waiting for approval');
    expect(waiting).toMatchObject({ status: 'running', detail: 'waiting for approval: touch by-job.txt', agent: { waitingApproval: { requestId: request.id, command: 'touch by-job.txt' } } });
    expect(fs.existsSync(path.join(project, 'by-job.txt'))).toBe(false);

    peer.sendRaw(JSON.stringify({ id: request.id, result: { decision: 'accept' } }));
    const done = await jobUpdate(peer, job.id, (j) => j.status === 'completed', 'the job completed');
    expect(done).toMatchObject({ progress: 100, agent: { goalStatus: 'complete', waitingApproval: null, turns: 1 } });
    expect(fs.existsSync(path.join(project, 'by-job.txt'))).toBe(true);
    // Codex's goal notification came with the thread's other events.
    const goal = await peer.inbox.take(
      (r) => r.kind === 'notification' && r.message.method === 'thread/goal/updated' && (r.message.params as { goal: { status: string } }).goal.status === 'complete',
      'the completed goal',
    );
    expect((goal.message as NotificationMessage).params).toMatchObject({ threadId: job.threadId });
    const listed = await peer.call('job/list', {});
    expect(listed.data[0]).toMatchObject({ id: job.id, status: 'completed', threadId: job.threadId });
  });
});
