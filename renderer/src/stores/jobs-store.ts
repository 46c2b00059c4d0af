import { create, type StoreApi, type UseBoundStore } from 'zustand';
import type { Job, JobHistoryEntry, JobRun, JobStatus, ParamsOf } from '../../../shared/protocol/index.js';
import type { WheelhouseClient } from '../client/wheelhouse-client.js';
import { browserScheduler, FrameBatcher, type FrameScheduler } from './frame-batcher.js';
import { showRequestError } from './toast-store.js';

export type JobAction = 'pause' | 'resume' | 'cancel' | 'retry' | 'delete';
export type JobFilter = 'all' | JobStatus;

export interface JobDetail {
  readonly history: readonly JobHistoryEntry[];
  /** Every attempt with how it ended, oldest first. */
  readonly runs: readonly JobRun[];
}

export interface JobsState {
  /** Every job by id; replaced (not mutated) when any changes, so selectors see a new value. */
  readonly jobs: ReadonlyMap<string, Job>;
  /** The same jobs, newest-updated first (kept sorted here, so a mount does not sort 10,000). */
  readonly sorted: readonly Job[];
  readonly loaded: boolean;
  readonly filter: JobFilter;
  readonly search: string;
  /** The Jobs dashboard is showing (instead of the conversation). */
  readonly open: boolean;
  /** The job page shown; null: the list. */
  readonly selectedJobId: string | null;
  readonly details: Readonly<Record<string, JobDetail>>;
  readonly creating: boolean;
  show(jobId?: string | null): void;
  hide(): void;
  setFilter(filter: JobFilter): void;
  setSearch(search: string): void;
  load(): Promise<void>;
  /** Fetches one job's history (the transition timeline) and its attempts; one fetch at a time per job, the last change always read. */
  loadDetail(jobId: string): Promise<void>;
  create(params: ParamsOf<'job/create'>): Promise<Job | null>;
  act(jobId: string, action: JobAction): Promise<void>;
}

const PAGE = 500;

/** The actions that make sense for a job as it is now (the runtime refuses the others). */
export function allowedActions(job: Job): ReadonlySet<JobAction> {
  switch (job.status) {
    case 'queued':
      return new Set(['pause', 'cancel', 'delete']);
    case 'running':
      return new Set(['pause', 'cancel']);
    case 'paused':
      return new Set(['resume', 'cancel']);
    case 'failed':
      return new Set(job.nextRetryAt !== null ? ['retry', 'cancel', 'delete'] : ['retry', 'delete']);
    case 'cancelled':
      return new Set(['retry', 'delete']);
    case 'completed':
      return new Set(['delete']);
  }
}

const newerFirst = (a: Job, b: Job) => b.updatedAt - a.updatedAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** Newest-updated first, as job/list orders them. */
export function sortJobs(jobs: Iterable<Job>): Job[] {
  return [...jobs].sort(newerFirst);
}

/** `sorted` with `changed` jobs replaced and in place: linear, for a frame's few updates among 10,000. */
export function resortJobs(sorted: readonly Job[], changed: readonly Job[]): Job[] {
  if (changed.length === 0) return [...sorted];
  const ids = new Set(changed.map((j) => j.id));
  const rest = sorted.filter((j) => !ids.has(j.id));
  const fresh = [...changed].sort(newerFirst);
  const out: Job[] = [];
  let i = 0;
  let k = 0;
  while (i < rest.length || k < fresh.length) {
    if (k >= fresh.length || (i < rest.length && newerFirst(rest[i]!, fresh[k]!) <= 0)) out.push(rest[i++]!);
    else out.push(fresh[k++]!);
  }
  return out;
}

export function matchesJob(job: Job, filter: JobFilter, search: string): boolean {
  if (filter !== 'all' && job.status !== filter) return false;
  if (!search) return true;
  const needle = search.toLowerCase();
  return job.name.toLowerCase().includes(needle) || (job.command ?? '').toLowerCase().includes(needle);
}

/** Sees each job change as it arrives live (never the jobs a load or reload fetches): the notices decide what is worth telling. */
export type JobChangeListener = (before: Job | undefined, after: Job) => void;

/**
 * Every job, kept current by job/updated (applied once per frame, however many
 * arrive), with the dashboard's filter, search and selection.
 */
export function createJobsStore(
  client: WheelhouseClient,
  onJobChanged: JobChangeListener = () => undefined,
  scheduler: FrameScheduler = browserScheduler,
): UseBoundStore<StoreApi<JobsState>> {
  /** Jobs whose detail is being fetched; true when a change came meanwhile and it must be fetched again. */
  const detailLoads = new Map<string, boolean>();
  const store = create<JobsState>()((set, get) => ({
    jobs: new Map(),
    sorted: [],
    loaded: false,
    filter: 'all',
    search: '',
    open: false,
    selectedJobId: null,
    details: {},
    creating: false,
    show: (jobId = null) => {
      set({ open: true, selectedJobId: jobId });
      if (jobId) void get().loadDetail(jobId);
    },
    hide: () => set({ open: false }),
    setFilter: (filter) => set({ filter }),
    setSearch: (search) => set({ search }),
    load: async () => {
      try {
        const all = new Map<string, Job>();
        let cursor: string | null = null;
        do {
          const page: { data: Job[]; nextCursor: string | null } = await client.request('job/list', { limit: PAGE, cursor });
          for (const job of page.data) all.set(job.id, job);
          cursor = page.nextCursor;
          // Updates that arrived while paging are newer than what a page said.
          for (const [id, job] of get().jobs) {
            const listed = all.get(id);
            if (!listed || listed.updatedAt <= job.updatedAt) all.set(id, job);
          }
          // The first page shows at once; the rest fill in behind it.
          set({ jobs: new Map(all), sorted: sortJobs(all.values()), loaded: true });
        } while (cursor !== null);
      } catch (error) {
        showRequestError(error);
      }
    },
    loadDetail: async (jobId) => {
      if (detailLoads.has(jobId)) {
        detailLoads.set(jobId, true);
        return;
      }
      detailLoads.set(jobId, false);
      try {
        const [{ job, history }, { runs }] = await Promise.all([client.request('job/read', { jobId }), client.request('job/runs', { jobId })]);
        apply([job]);
        set((state) => ({ details: { ...state.details, [jobId]: { history, runs } } }));
      } catch (error) {
        showRequestError(error);
      } finally {
        const again = detailLoads.get(jobId);
        detailLoads.delete(jobId);
        if (again) void get().loadDetail(jobId);
      }
    },
    create: async (params) => {
      set({ creating: true });
      try {
        const { job } = await client.request('job/create', params);
        apply([job]);
        return job;
      } catch (error) {
        showRequestError(error);
        return null;
      } finally {
        set({ creating: false });
      }
    },
    act: async (jobId, action) => {
      try {
        if (action === 'delete') {
          await client.request('job/delete', { jobId });
          drop(jobId);
          return;
        }
        const { job } = await client.request(`job/${action}`, { jobId });
        apply([job]);
      } catch (error) {
        showRequestError(error);
      }
    },
  }));

  /** Jobs deleted (here or by another client): an update still waiting for its frame must not bring one back. */
  const deleted = new Set<string>();
  const drop = (jobId: string) => {
    deleted.add(jobId);
    const { jobs: current } = store.getState();
    if (!current.has(jobId)) return;
    const jobs = new Map(current);
    jobs.delete(jobId);
    store.setState((state) => ({ jobs, sorted: state.sorted.filter((j) => j.id !== jobId), selectedJobId: state.selectedJobId === jobId ? null : state.selectedJobId }));
  };

  /** Applies updates, keeping the newest of each job; an update to the open job refreshes its timeline. */
  const apply = (all: readonly Job[]) => {
    const updates = deleted.size === 0 ? all : all.filter((job) => !deleted.has(job.id));
    const { jobs: current, selectedJobId, sorted } = store.getState();
    const jobs = new Map(current);
    let refreshSelected = false;
    for (const job of updates) {
      const before = jobs.get(job.id);
      if (before && before.updatedAt > job.updatedAt) continue;
      jobs.set(job.id, job);
      if (job.id === selectedJobId && before?.updatedAt !== job.updatedAt) refreshSelected = true;
      onJobChanged(before, job);
    }
    const changed = [...new Set(updates.map((j) => j.id))].map((id) => jobs.get(id)!);
    store.setState({ jobs, sorted: resortJobs(sorted, changed) });
    if (refreshSelected && selectedJobId) void store.getState().loadDetail(selectedJobId);
  };
  const batcher = new FrameBatcher<Job>(apply, scheduler);
  client.on('job/updated', ({ job }) => batcher.push(job));
  client.on('job/deleted', ({ jobId }) => drop(jobId));
  // Jobs may have moved on while the link was down.
  client.onReady(() => {
    if (store.getState().loaded) void store.getState().load();
  });
  return store;
}
