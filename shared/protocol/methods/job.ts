import { z } from 'zod';
import { defineMethod, defineNotification } from '../define.js';
import { AskForApproval, SandboxMode, ThreadGoalStatus } from '../thread.js';

/**
 * Long-running jobs (seed 000's JobManager, with retries that really run).
 * Wheelhouse's own namespace: Codex has no job methods.
 */

export const JOB_STATUSES = ['queued', 'running', 'paused', 'completed', 'failed', 'cancelled'] as const;
export const JobStatus = z.enum(JOB_STATUSES);
export type JobStatus = z.infer<typeof JobStatus>;

export const JobKind = z.enum(['command', 'agent']);
export type JobKind = z.infer<typeof JobKind>;

/** Default and largest page of job/list. */
export const JOB_LIST_DEFAULT_LIMIT = 50;
export const JOB_LIST_MAX_LIMIT = 500;
/** Largest slice of a log one job/log returns. */
export const JOB_LOG_MAX_LIMIT = 1024 * 1024;
/** Most lines one job/log/lines returns. */
export const JOB_LOG_LINES_MAX = 2000;
/** Bytes of one line job/log/lines returns; a longer line is cut there (the log keeps all of it). */
export const JOB_LOG_LINE_MAX_BYTES = 16 * 1024;
/** Bytes of lines one job/log/lines returns at most; it returns fewer lines rather than more. */
export const JOB_LOG_LINES_MAX_BYTES = 512 * 1024;
/** Most matching lines one job/log/search returns. */
export const JOB_LOG_SEARCH_MAX_MATCHES = 10_000;

/** Why a read of a run's log was refused (`data.reason` of the error). */
export const JobLogErrorReason = z.enum(['job.runNotFound', 'job.lineOutOfRange', 'job.logUnreadable']);
export type JobLogErrorReason = z.infer<typeof JobLogErrorReason>;

/** When a scheduled run raises a desktop notification: only when it fails, after every run, or never. */
export const ScheduleNotify = z.enum(['failure', 'always', 'never']);
export type ScheduleNotify = z.infer<typeof ScheduleNotify>;

const JobId = z.string().min(1).max(200);
const JobRequest = z.object({ jobId: JobId });

/** What an `agent` job is working toward and what it has used (null for other kinds). */
export const JobAgent = z.object({
  objective: z.string(),
  /** The thread goal's status (seed 001); null before the thread has one. */
  goalStatus: ThreadGoalStatus.nullable(),
  tokenBudget: z.number().int().nullable(),
  tokensUsed: z.number().int().min(0),
  timeBudgetMs: z.number().int().nullable(),
  timeUsedMs: z.number().int().min(0),
  approvalPolicy: AskForApproval,
  sandbox: SandboxMode.nullable(),
  /** Command prefixes the job may run without asking. */
  allowCommands: z.array(z.string()),
  /** Turns taken so far. */
  turns: z.number().int().min(0),
  /** A command approval the job is waiting for; null when it is not waiting. */
  waitingApproval: z.object({ requestId: z.string(), command: z.string().nullable() }).nullable(),
});
export type JobAgent = z.infer<typeof JobAgent>;

export const Job = z.object({
  id: z.string(),
  kind: JobKind,
  name: z.string(),
  status: JobStatus,
  /** 0–100, or null while the job cannot tell (indeterminate). */
  progress: z.number().int().min(0).max(100).nullable(),
  detail: z.string().nullable(),
  /**
   * Seed 000: automatic retries used so far, one counted as soon as it is scheduled (0 on the first
   * run). A scheduled retry the person replaces with `job/retry`, or cancels, is given back.
   */
  attempt: z.number().int().min(0),
  /** Seed 000: automatic retries allowed after a failure. */
  maxAttempts: z.number().int().min(0),
  /**
   * The most runs this job can have unless someone presses retry again: the first, its automatic
   * retries, and one per manual `job/retry`. "Attempt `runs` (of at most `maxRuns`)".
   */
  maxRuns: z.number().int().min(0),
  /**
   * A lost run (gone while Wheelhouse was not running, without an exit status) may be run again from
   * the start, if retries are left. False for agent jobs, which resume their thread instead.
   */
  rerunIfLost: z.boolean(),
  /** When the next automatic retry runs (ms epoch); null when none is scheduled. */
  nextRetryAt: z.number().nullable(),
  exitCode: z.number().int().nullable(),
  threadId: z.string().nullable(),
  /** The schedule that started this run (schedule/*); null for a job started by hand or by the agent. */
  scheduleId: z.string().nullable(),
  /** Its schedule's notification policy (null: not scheduled, the app's default: finished and failed). */
  scheduleNotify: ScheduleNotify.nullable(),
  createdAt: z.number(),
  updatedAt: z.number(),
  // Beyond the issue's shape, for the dashboard:
  /** The shell command of a `command` job. */
  command: z.string().nullable(),
  cwd: z.string(),
  /** Where it runs (environment/list): `local`, or a machine's id. Absent from older servers: local. */
  environmentId: z.string().optional(),
  /** Runs started so far (numbered from 1; `job/log` and `job/output/delta` use this number). */
  runs: z.number().int().min(0),
  /** Time spent running (not paused) in the current or last run, as of `updatedAt`. */
  activeMs: z.number().min(0),
  /** Estimated time left from the rate of progress; null when unknown. */
  etaMs: z.number().min(0).nullable(),
  /** An agent job's goal, budgets and approval state; null for command jobs. */
  agent: JobAgent.nullable(),
});
export type Job = z.infer<typeof Job>;

export const JobRetry = z.object({
  attempt: z.number().int(),
  maxAttempts: z.number().int(),
  backoffBaseMs: z.number(),
  nextBackoffMs: z.number(),
  nextRetryAt: z.number().nullable(),
});

export const JobHistoryEntry = z.object({
  at: z.number(),
  phase: z.string(),
  status: JobStatus,
  progress: z.number().int().nullable(),
  detail: z.string().nullable(),
  retry: JobRetry,
});
export type JobHistoryEntry = z.infer<typeof JobHistoryEntry>;

const Env = z.record(z.string().min(1).max(200).regex(/^[^=\0]+$/, 'an environment variable name has no = or NUL'), z.string().max(32_768));

export const JobCreateCommandParams = z.object({
  kind: z.literal('command'),
  name: z.string().trim().max(200).optional(),
  /** Run by the user's login shell, in a pseudo-terminal. */
  command: z.string().trim().min(1, 'command must not be blank').max(100_000),
  /** Absolute working folder. */
  cwd: z.string().min(1).max(4096),
  env: Env.optional(),
  timeoutMs: z.number().int().min(1).max(30 * 24 * 3600 * 1000).optional(),
  maxAttempts: z.number().int().min(0).max(100).optional(),
  /** Also read progress from percentages ("42%") and counts ("3/10") in the output. */
  progressFromOutput: z.boolean().optional(),
  /**
   * Safe to run again from the start when a run is lost: its process ended while Wheelhouse was not
   * running and left no exit status (e.g. the computer restarted). Default false: such a run fails
   * and waits for the person. Uses up an automatic retry; none left, no re-run.
   */
  rerunIfLost: z.boolean().optional(),
  /** Where it runs (environment/list); default `local`. For a remote one, `cwd` is a folder there. */
  environmentId: z.string().min(1).max(64).optional(),
});

export const JobCreateAgentParams = z.object({
  kind: z.literal('agent'),
  name: z.string().trim().max(200).optional(),
  cwd: z.string().min(1).max(4096),
  objective: z.string().trim().min(1).max(4000),
  tokenBudget: z.number().int().min(1).optional(),
  timeBudgetMs: z.number().int().min(1).max(30 * 24 * 3600 * 1000).optional(),
  /** What the agent may run without asking (Codex's AskForApproval); default "on-request". */
  approvalPolicy: AskForApproval.optional(),
  /** The sandbox of its commands; default the app's (workspace-write where the sandbox works). */
  sandbox: SandboxMode.optional(),
  /** Command prefixes it may run unasked, e.g. "npm test" (granted to its thread). */
  allowCommands: z.array(z.string().trim().min(1).max(500)).max(50).optional(),
  maxAttempts: z.number().int().min(0).max(100).optional(),
  /** Turns it may take before it stops without reaching the goal (default 50). */
  maxTurns: z.number().int().min(1).max(1000).optional(),
  /** Wheelhouse: work in a separate copy (a git worktree on a new branch `wheelhouse/job-<name>`) of the repository at `cwd`; the job's `cwd` is the copy. */
  worktree: z.boolean().optional(),
});
export type JobCreateAgentParams = z.output<typeof JobCreateAgentParams>;

export const JobCreateParams = z.discriminatedUnion('kind', [JobCreateCommandParams, JobCreateAgentParams]);
export type JobCreateParams = z.output<typeof JobCreateParams>;
export type JobCreateCommandParams = z.output<typeof JobCreateCommandParams>;

export const JobListParams = z.object({
  status: z.union([JobStatus, z.array(JobStatus).max(JOB_STATUSES.length)]).nullable().optional(),
  /** Case-insensitive match on name and command. */
  search: z.string().max(500).nullable().optional(),
  limit: z.number().int().min(1).max(JOB_LIST_MAX_LIMIT).nullable().optional(),
  /** From a previous page's `nextCursor`. */
  cursor: z.string().max(400).nullable().optional(),
});
export type JobListParams = z.output<typeof JobListParams>;

export const JobLogParams = z.object({
  jobId: JobId,
  /** The run (from 1); default the newest. */
  attempt: z.number().int().min(1).optional(),
  offset: z.number().int().min(0).optional(),
  limit: z.number().int().min(1).max(JOB_LOG_MAX_LIMIT).optional(),
});

export const JobLogLinesParams = z.object({
  jobId: JobId,
  /** The run (from 1); default the newest. */
  attempt: z.number().int().min(1).optional(),
  /** First line (from 0); omitted: the last `count` lines. */
  fromLine: z.number().int().min(0).optional(),
  count: z.number().int().min(1).max(JOB_LOG_LINES_MAX),
});

export const JobLogLinesResult = z.object({
  attempt: z.number().int(),
  fromLine: z.number().int(),
  /** Raw lines (colour escapes and carriage returns kept; no newline); fewer than asked at the end or past the byte budget. */
  lines: z.array(z.string()),
  /** Numbers of the returned lines cut at JOB_LOG_LINE_MAX_BYTES. */
  clipped: z.array(z.number().int()),
  /** Lines in the log now; an unfinished last line counts. */
  lineCount: z.number().int(),
  /** Bytes in the log now. */
  bytes: z.number().int(),
  /** The run has ended: the log will not grow. */
  ended: z.boolean(),
});
export type JobLogLinesResult = z.infer<typeof JobLogLinesResult>;

export const JobLogSearchParams = z.object({
  jobId: JobId,
  attempt: z.number().int().min(1).optional(),
  /** Text to find in what the lines show (escapes removed), ignoring case. */
  query: z
    .string()
    .min(1)
    .max(500)
    .refine((q) => !/[\r\n]/.test(q), 'a search is within one line: no line breaks'),
  /** First line searched (from 0): a client that searched before continues where it stopped. */
  fromLine: z.number().int().min(0).optional(),
  /** Line the search stops before; default the end. A client searches a long log in slices, showing matches as they come. */
  toLine: z.number().int().min(0).optional(),
  maxMatches: z.number().int().min(1).max(JOB_LOG_SEARCH_MAX_MATCHES).optional(),
});

export const JobLogSearchResult = z.object({
  attempt: z.number().int(),
  /** Numbers of the lines that match, ascending. */
  lines: z.array(z.number().int()),
  /** Lines searched up to (exclusive): toLine or the log's complete lines, or where it stopped at maxMatches. */
  searchedTo: z.number().int(),
  /** It stopped at maxMatches: there may be more. */
  truncated: z.boolean(),
});
export type JobLogSearchResult = z.infer<typeof JobLogSearchResult>;

export const JobRun = z.object({
  run: z.number().int(),
  startedAt: z.number(),
  endedAt: z.number().nullable(),
  /** completed, failed, timed-out, cancelled or interrupted; null while it runs. */
  outcome: z.string().nullable(),
  /** Bytes of its log. */
  bytes: z.number().int(),
  /** The Slurm job id of a run submitted to a Slurm cluster (`squeue`, `sacct`, `scancel` know it by this); null elsewhere. Absent from older servers. */
  slurmJobId: z.number().int().nullable().optional(),
});
export type JobRun = z.infer<typeof JobRun>;

const JobResult = z.object({ job: Job });

export const jobMethods = {
  'job/create': defineMethod(JobCreateParams, JobResult, 'Create a job; it runs when a slot is free.'),
  'job/list': defineMethod(
    JobListParams,
    z.object({ data: z.array(Job), nextCursor: z.string().nullable() }),
    'Jobs, most recently updated first.',
  ),
  'job/read': defineMethod(
    JobRequest,
    z.object({ job: Job, history: z.array(JobHistoryEntry), logTail: z.string() }),
    'One job with its transition history and the end of its newest log.',
  ),
  'job/pause': defineMethod(JobRequest, JobResult, 'Pause a queued or running job (a running one is stopped with SIGSTOP).'),
  'job/resume': defineMethod(JobRequest, JobResult, 'Resume a paused job.'),
  'job/cancel': defineMethod(JobRequest, JobResult, 'Cancel a job; a running one is terminated with its whole process tree.'),
  'job/retry': defineMethod(JobRequest, JobResult, 'Run a failed or cancelled job again now.'),
  'job/delete': defineMethod(JobRequest, z.object({ deleted: z.literal(true) }), 'Delete a job that is not running, with its logs.'),
  'job/log': defineMethod(
    JobLogParams,
    z.object({
      attempt: z.number().int(),
      offset: z.number().int(),
      /** Where the next read starts: past the bytes returned (a character the limit would cut is left for it). */
      nextOffset: z.number().int(),
      /** The bytes, as UTF-8 text (a terminal replays it). */
      data: z.string(),
      /** Bytes in the log now. */
      size: z.number().int(),
      eof: z.boolean(),
    }),
    'Bytes of one run’s output log.',
  ),
  'job/log/lines': defineMethod(JobLogLinesParams, JobLogLinesResult, 'Lines of one run’s output log, by number (an index of the log makes any range quick).'),
  'job/log/search': defineMethod(JobLogSearchParams, JobLogSearchResult, 'The lines of one run’s output log that show a text.'),
  'job/runs': defineMethod(JobRequest, z.object({ runs: z.array(JobRun) }), 'Every run of a job with how it ended and the size of its log.'),
} as const;

export const jobNotifications = {
  'job/updated': defineNotification(z.object({ job: Job }), 'A job changed (status, progress, retry schedule); already durable.'),
  'job/output/delta': defineNotification(
    z.object({
      jobId: z.string(),
      attempt: z.number().int(),
      /**
       * Where `delta` begins in the run's log, in bytes (`job/log`'s offsets). A client that has read
       * the log up to N keeps only the part of a delta from N on, so it shows each byte once — also
       * when output is streamed again after a restart.
       */
      offset: z.number().int().min(0),
      delta: z.string(),
    }),
    'Output of a running job.',
  ),
  'job/deleted': defineNotification(z.object({ jobId: z.string() }), 'A job and its logs were deleted; clients drop its row.'),
} as const;
