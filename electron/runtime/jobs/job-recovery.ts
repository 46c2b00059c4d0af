import type { DetachedEnvironment, DetachedRunHandle, DetachedRunState } from '../../exec/index.js';
import type { JobRow, JobRunRow, JobStore } from '../../store/job-store.js';
import type { AgentRunner } from './agent-runner.js';
import { LOST_WHILE_AWAY, type JobCommandRunner } from './job-command-runner.js';
import type { JobCommits } from './job-commits.js';
import type { JobEntry } from './job-entry.js';
import type { JobLogs } from './job-logs.js';
import * as machine from './job-state.js';

/** What recovery works with; `reattach` is the engine's (it holds the run's slot). */
export interface RecoveryParts {
  readonly store: JobStore;
  readonly commits: JobCommits;
  readonly logs: JobLogs;
  readonly runner: JobCommandRunner;
  readonly agents: AgentRunner | null;
  readonly environment: DetachedEnvironment;
  reattach(entry: JobEntry, row: JobRunRow, handle: DetachedRunHandle, state: DetachedRunState['state'], activeSince: number, now: number): void;
}

/**
 * A command job at start-up. A run that had started is re-attached, never
 * started again (alive, ended meanwhile, or lost: job-command-runner settles
 * which). A run inside the old process is gone with it: lost. A run made
 * durable but never started begins afresh under the same number. A job with
 * nothing in flight goes back to the queue if it was queued.
 */
export function recoverCommandJob(parts: RecoveryParts, entry: JobEntry, row: JobRow, now: number): void {
  const { status } = entry.state;
  if (status !== 'queued' && status !== 'running' && status !== 'paused') return;
  const last = parts.store.runs(entry.state.id).at(-1);
  if (last && last.endedAtMs === null) {
    if (last.handle === null) {
      // A command the agent started inside the app, or a run from before runs were detached.
      parts.logs.markLost(last);
      parts.commits.runEnded({ jobId: entry.state.id, run: last.run, endedAtMs: now, outcome: 'lost' });
      entry.activeSince = null;
      loseRun(parts, entry, `${LOST_WHILE_AWAY} (it ran inside Wheelhouse)`, now);
      return;
    }
    const handle = parts.runner.handleOf(last);
    if (handle) {
      // Stored while it ran; a run recorded as started but not yet as running has run since about now.
      parts.reattach(entry, last, handle, parts.environment.state(handle).state, row.activeSinceMs ?? now, now);
      return;
    }
    // Made durable, never started (the app died in between): this run number starts afresh.
    entry.runs = last.run - 1;
  }
  machine.resumePending([entry.state], now);
  if (entry.state.status === 'queued') parts.commits.mark(entry);
}

/** A run gone without an exit status: failed; run again from the start only where the person said that is safe. */
function loseRun(parts: RecoveryParts, entry: JobEntry, detail: string, now: number): void {
  if (entry.spec.rerunIfLost) machine.fail(entry.state, detail, now);
  else machine.failWithoutRetry(entry.state, `${detail}; retry it if running it again from the start is safe`, now);
  parts.commits.mark(entry);
}

/**
 * An agent job at start-up: one that was running (or paused) goes back to
 * the queue and, started again, continues the same run on its thread — where
 * its goal decides whether another turn is taken (agent-runner).
 */
export function recoverAgentJob(parts: RecoveryParts, entry: JobEntry, now: number): void {
  const wasLive = entry.state.status === 'running' || entry.state.status === 'paused';
  const agentDetail = wasLive && parts.agents ? parts.agents.recoveredDetail(entry) : null;
  if (entry.state.status === 'paused' && agentDetail !== null) {
    entry.state.detail = `${agentDetail}; resume goes on`;
    entry.state.updatedAt = now;
    machine.pushHistory(entry.state, 'interrupted');
    parts.commits.mark(entry);
  }
  machine.resumePending([entry.state], now, () => agentDetail);
  entry.continueRun = agentDetail !== null;
  if (entry.state.status === 'queued') parts.commits.mark(entry);
}
