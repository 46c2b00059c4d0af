import { z } from 'zod';
import { RpcError, type Job } from '../../../shared/protocol/index.js';
import { boundedView } from '../../exec/index.js';
import type { AgentCommandRunner as AgentCommands } from '../agent-commands/agent-command-runner.js';
import { resolveWorkdir } from '../agent-commands/agent-command-runner.js';
import type { SandboxMode } from '../policy/policy-vocabulary.js';
import { defineTool, type ToolEntry, type ToolInvocation, type ToolResult } from '../tools/tool-table.js';
import type { JobEngine } from './job-engine.js';

export const JOB_START = 'job_start';
export const JOB_STATUS = 'job_status';
export const JOB_OUTPUT = 'job_output';

/** What one job_output answer carries at most (head + tail, like exec_command). */
export const JOB_OUTPUT_MAX_BYTES = 16 * 1024;
/** How far back a job_output without an offset reads. */
const JOB_OUTPUT_WINDOW = 1024 * 1024;

const JobStartArgs = z.object({
  command: z.string().trim().min(1).max(64 * 1024).describe('The shell command to run.'),
  cwd: z.string().max(4096).optional().describe('Working folder, relative to the project folder (default: the project folder).'),
  name: z.string().trim().max(200).optional().describe('A short name for the dashboard (default: the command).'),
  timeoutMs: z.number().int().min(1).max(30 * 24 * 3600 * 1000).optional().describe('Stop it (and everything it started) after this much running time.'),
  maxAttempts: z.number().int().min(0).max(10).optional().describe('Automatic retries after a failure (default 0).'),
});
const JobStatusArgs = z.object({ jobId: z.string().min(1).max(200) });
const JobOutputArgs = z.object({
  jobId: z.string().min(1).max(200),
  offset: z.number().int().min(0).optional().describe('Byte offset in the log to read from.'),
  limit: z.number().int().min(1).max(JOB_OUTPUT_WINDOW).optional().describe('Bytes to read (default: to the end).'),
});

type JobTurn = { readonly threadId: string; readonly id: string; readonly cwd: string };

/** job_start / job_status / job_output as rows of the tool table; a typed refusal (forbidden, unknown job, bad folder) is the model's to read. */
export function jobTools(tools: AgentJobTools): ToolEntry<JobTurn>[] {
  return [
    defineTool({
      name: JOB_START,
      description:
        'Start a shell command as a background job (a long build, test suite or server) and return at once with its jobId; the turn does not wait for it. The person sees it in the Jobs dashboard. Check on it later with job_status and read its output with job_output. The same approval rules as exec_command apply: it may wait for the person\'s approval before it starts.',
      args: JobStartArgs,
      run: (args, { turn }: ToolInvocation<JobTurn>) => refusedAsText(() => tools.start(turn, args)),
    }),
    defineTool({
      name: JOB_STATUS,
      description: 'The status of a background job: queued (maybe waiting for approval), running, paused, completed, failed or cancelled, with progress, exit code and running time.',
      args: JobStatusArgs,
      run: (args) => refusedAsText(() => tools.status(args.jobId)),
    }),
    defineTool({
      name: JOB_OUTPUT,
      description:
        'Output of a background job\'s newest run. Without offset: the newest part (long output is cut in the middle). With offset (bytes) and limit: that slice. The answer says the total size and the next offset.',
      args: JobOutputArgs,
      run: (args) => refusedAsText(async () => tools.output(args)),
    }),
  ];
}

async function refusedAsText(run: () => Promise<ToolResult>): Promise<ToolResult> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof RpcError) return { success: false, output: error.message };
    throw error;
  }
}

export interface AgentJobToolsDeps {
  /** The engine is built after the turn engine; read it when a tool runs. */
  readonly jobs: () => JobEngine;
  readonly commands: AgentCommands;
  readonly settingsOf: (threadId: string) => Promise<{ sandbox: SandboxMode }>;
}

/**
 * The agent's background jobs: what `job_start` / `job_status` / `job_output`
 * do, and its `exec_command` calls that outlive their turn, which become jobs.
 */
export class AgentJobTools {
  constructor(private readonly deps: AgentJobToolsDeps) {}

  /** After a turn: each command it left running becomes a job linked to the thread. */
  async adoptLeftovers(threadId: string, turnId: string): Promise<Job[]> {
    const adopted: Job[] = [];
    for (const leftover of this.deps.commands.takeLeftovers(turnId)) {
      adopted.push(await this.deps.jobs().adopt(leftover.process, { threadId, command: leftover.command, cwd: leftover.cwd, spec: { sandbox: leftover.sandbox } }));
    }
    return adopted;
  }

  async start(turn: JobTurn, args: z.output<typeof JobStartArgs>): Promise<ToolResult> {
    const { sandbox } = await this.deps.settingsOf(turn.threadId);
    const cwd = resolveWorkdir(turn.cwd, args.cwd, sandbox);
    if (!cwd.ok) return { success: false, output: cwd.reason };
    const { job } = await this.deps.jobs().create(
      {
        kind: 'command',
        command: args.command,
        cwd: cwd.path,
        ...(args.name ? { name: args.name } : {}),
        ...(args.timeoutMs !== undefined ? { timeoutMs: args.timeoutMs } : {}),
        maxAttempts: args.maxAttempts ?? 0,
      },
      { kind: 'agent', threadId: turn.threadId, turnId: turn.id },
    );
    const waiting = job.detail === 'waiting for approval' ? ' It waits for the person\'s approval before it starts.' : '';
    return { success: true, output: `Started background job ${job.id} ("${job.name}"), status ${job.status}.${waiting} Use job_status and job_output with jobId "${job.id}" to check on it.` };
  }

  async status(jobId: string): Promise<ToolResult> {
    const { job } = await this.deps.jobs().read(jobId);
    return { success: true, output: describeJob(job) };
  }

  output(args: z.output<typeof JobOutputArgs>): ToolResult {
    const jobs = this.deps.jobs();
    // The log's size first, to read its newest part when no offset is given.
    const probe = jobs.log({ jobId: args.jobId, offset: 0, limit: 1 });
    const size = probe.size;
    const offset = args.offset ?? Math.max(0, size - JOB_OUTPUT_WINDOW);
    const slice = jobs.log({ jobId: args.jobId, ...(probe.attempt > 0 ? { attempt: probe.attempt } : {}), offset, limit: args.limit ?? JOB_OUTPUT_WINDOW });
    const next = slice.offset + Buffer.byteLength(slice.data, 'utf8');
    const header =
      probe.attempt === 0
        ? `Job ${args.jobId} has not started a run yet.`
        : `Job ${args.jobId}, run ${slice.attempt}: bytes ${slice.offset}–${next} of ${slice.size}${slice.eof ? ' (the run has ended)' : ' (still running)'}; next offset ${next}.`;
    return { success: true, output: `${header}\n${boundedView(slice.data, JOB_OUTPUT_MAX_BYTES)}` };
  }
}

function describeJob(job: Job): string {
  const lines = [
    `Job ${job.id} ("${job.name}"): ${job.status}${job.detail ? ` — ${job.detail}` : ''}`,
    `command: ${job.command ?? ''}`,
    `progress: ${job.progress === null ? 'unknown' : `${job.progress}%`}`,
    `runs: ${job.runs} (retries used ${job.attempt} of ${job.maxAttempts})`,
    `running time: ${(job.activeMs / 1000).toFixed(1)} s`,
  ];
  if (job.exitCode !== null) lines.push(`exit code: ${job.exitCode}`);
  if (job.nextRetryAt !== null) lines.push(`next retry at: ${new Date(job.nextRetryAt).toISOString()}`);
  return lines.join('\n');
}
