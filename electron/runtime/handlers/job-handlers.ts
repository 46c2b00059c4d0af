import type { jobMethods } from '../../../shared/protocol/index.js';
import type { JobEngine } from '../jobs/job-engine.js';
import type { ProjectService } from '../projects/project-service.js';
import type { HandlerTable } from './handler-table.js';

/** job/*: long-running commands and agents, their runs and logs. */
export function jobHandlers(jobs: JobEngine, projects: Pick<ProjectService, 'createAgentJob'>): HandlerTable<typeof jobMethods> {
  return {
    // An agent job may ask for its own separate copy (worktree) of the repository.
    'job/create': (params) => (params.kind === 'agent' ? projects.createAgentJob(params, (agent) => jobs.create(agent)) : jobs.create(params)),
    'job/list': (params) => jobs.list(params),
    'job/read': (params) => jobs.read(params.jobId),
    'job/pause': (params) => jobs.pause(params.jobId),
    'job/resume': (params) => jobs.resume(params.jobId),
    'job/cancel': (params) => jobs.cancel(params.jobId),
    'job/retry': (params) => jobs.retry(params.jobId),
    'job/delete': (params) => jobs.delete(params.jobId),
    'job/log': (params) => jobs.log(params),
    'job/log/lines': (params) => jobs.logLines(params),
    'job/log/search': (params) => jobs.logSearch(params),
    'job/runs': (params) => jobs.runs(params.jobId),
  };
}
