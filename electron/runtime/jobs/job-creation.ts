import fs from 'node:fs';
import path from 'node:path';
import { RpcError, type JobCreateParams } from '../../../shared/protocol/index.js';
import { agentSpecOf, type AgentSpec } from './agent-spec.js';
import { commandSpecOf, type CommandSpec } from './job-entry.js';
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
export function validateJobRequest(params: JobCreateParams, checkEnvironment?: (environmentId: string) => void): JobRequest {
  const maxAttempts = params.maxAttempts ?? machine.DEFAULT_JOB_MAX_ATTEMPTS;
  if (params.kind === 'agent') {
    requireFolder(params.cwd);
    return { kind: 'agent', name: params.name || params.objective.slice(0, DERIVED_NAME_LENGTH), maxAttempts, spec: agentSpecOf(params), objective: params.objective };
  }
  const spec = commandSpecOf(params);
  if (spec.environmentId === undefined) requireFolder(params.cwd);
  else {
    if (checkEnvironment) checkEnvironment(spec.environmentId);
    else throw RpcError.because('environment.unknown', `no environment ${spec.environmentId}: this host runs jobs on this machine only`, { environmentId: spec.environmentId });
    if (!path.posix.isAbsolute(spec.cwd)) throw RpcError.invalidParams(`invalid params for job/create: cwd: must be an absolute path on ${spec.environmentId}, got ${spec.cwd}`);
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
