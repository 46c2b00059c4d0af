import fs from 'node:fs';
import path from 'node:path';
import { RpcError, type EnvironmentKind, type JobCreateParams } from '../../../shared/protocol/index.js';
import { agentSpecOf, type AgentSpec } from './agent-spec.js';
import { commandSpecOf, type CommandSpec, type JobEntry } from './job-entry.js';
import * as machine from './job-state.js';

/** Longest name a job gets from its command or objective when none is given. */
const DERIVED_NAME_LENGTH = 120;

/** A job/create request checked whole: what the job will be, before anything is decided or written. */
export type JobRequest =
  | { readonly kind: 'command'; readonly name: string; readonly maxAttempts: number; readonly spec: CommandSpec }
  | { readonly kind: 'agent'; readonly name: string; readonly maxAttempts: number; readonly spec: AgentSpec; readonly objective: string };

/**
 * Step 1 of job/create (JobEngine.create): checks the request and says what
 * the job will be. Refuses, changing nothing, an environment that does not
 * exist and a folder that is not absolute or does not exist (a remote
 * folder is checked where it is, when the run starts).
 */
export function validateJobRequest(params: JobCreateParams, checkEnvironment?: (environmentId: string) => EnvironmentKind): JobRequest {
  const maxAttempts = params.maxAttempts ?? machine.DEFAULT_JOB_MAX_ATTEMPTS;
  if (params.kind === 'agent') {
    requireFolder(params.cwd);
    return { kind: 'agent', name: params.name || params.objective.slice(0, DERIVED_NAME_LENGTH), maxAttempts, spec: agentSpecOf(params), objective: params.objective };
  }
  const spec = commandSpecOf(params);
  const where = spec.environmentId ?? 'local';
  let kind: EnvironmentKind = 'local';
  if (spec.environmentId === undefined) requireFolder(params.cwd);
  else {
    if (checkEnvironment) kind = checkEnvironment(spec.environmentId);
    else throw RpcError.because('environment.unknown', `no environment ${spec.environmentId}: this host runs jobs on this machine only`, { environmentId: spec.environmentId });
    if (!path.posix.isAbsolute(spec.cwd)) throw RpcError.invalidParams(`invalid params for job/create: cwd: must be an absolute path on ${spec.environmentId}, got ${spec.cwd}`);
  }
  // One row with sub-runs is what Slurm's arrays are; elsewhere it would be a scheduler of our own.
  if (spec.arrayTasks !== undefined && kind !== 'slurm') {
    throw RpcError.because('job.arrayNeedsSlurm', `a job array runs on a Slurm cluster; ${where === 'local' ? 'this computer' : where} is not one: pick a Slurm machine, or create the tasks as separate jobs`, { environmentId: where });
  }
  return { kind: 'command', name: params.name || params.command.slice(0, DERIVED_NAME_LENGTH), maxAttempts, spec };
}

/** A bad folder is an error now, not three failed runs later. */
function requireFolder(cwd: string): void {
  if (!path.isAbsolute(cwd)) throw RpcError.invalidParams(`invalid params for job/create: cwd: must be an absolute path, got ${cwd}`);
  let isDir = false;
  try {
    isDir = fs.statSync(cwd).isDirectory();
  } catch {
    // Reported below.
  }
  if (!isDir) throw RpcError.invalidParams(`invalid params for job/create: cwd: no such folder: ${cwd}`);
}

/** A job as it is first held: nothing run, nothing waited for yet. */
export function newJobEntry(
  fields: Pick<JobEntry, 'state' | 'kind' | 'spec' | 'threadId' | 'agent' | 'queueOrder'> & Partial<Pick<JobEntry, 'scheduleId' | 'scheduleNotify' | 'runs' | 'activeMs' | 'activeSince'>>,
): JobEntry {
  return {
    scheduleId: null,
    scheduleNotify: null,
    approvalWait: null,
    exitCode: null,
    runs: 0,
    manualRetries: 0,
    continueRun: false,
    activeMs: 0,
    activeSince: null,
    etaMs: null,
    live: null,
    retryTimer: null,
    lastCommitAt: -Infinity,
    ...fields,
  };
}
