import { create, type StoreApi, type UseBoundStore } from 'zustand';
import type { ParamsOf, Schedule } from '../../../shared/protocol/index.js';
import type { WheelhouseClient } from '../client/wheelhouse-client.js';
import { showRequestError } from './toast-store.js';

export type ScheduleAction = 'pause' | 'resume' | 'runNow' | 'delete';

export interface SchedulesState {
  /** Every schedule by id, kept current by schedule/updated and schedule/deleted. */
  readonly schedules: ReadonlyMap<string, Schedule>;
  readonly loaded: boolean;
  /** The Schedules tab of the Jobs dashboard is showing (instead of the job list). */
  readonly open: boolean;
  /** The schedule to bring into view (from a job page's link); null: none. */
  readonly focusedId: string | null;
  /** A create or an edit is being saved. */
  readonly creating: boolean;
  show(scheduleId?: string | null): void;
  hide(): void;
  load(): Promise<void>;
  create(params: ParamsOf<'schedule/create'>): Promise<Schedule | null>;
  /** Saves an edit; null (with the reason shown) when it was refused. */
  update(params: ParamsOf<'schedule/update'>): Promise<Schedule | null>;
  /** Run now answers with the job it started (null when the overlap policy held it back). */
  act(scheduleId: string, action: ScheduleAction): Promise<string | null>;
}

/** Schedules for the Schedules tab: loaded once it is shown, then live. */
export function createSchedulesStore(client: WheelhouseClient): UseBoundStore<StoreApi<SchedulesState>> {
  const store = create<SchedulesState>()((set, get) => ({
    schedules: new Map(),
    loaded: false,
    open: false,
    focusedId: null,
    creating: false,
    show: (scheduleId = null) => {
      set({ open: true, focusedId: scheduleId });
      if (!get().loaded) void get().load();
    },
    hide: () => set({ open: false }),
    load: async () => {
      try {
        const { data } = await client.request('schedule/list', {});
        const schedules = new Map(data.map((s) => [s.id, s]));
        // A change that arrived while listing is newer than the list.
        for (const [id, schedule] of get().schedules) if ((schedules.get(id)?.updatedAt ?? -1) < schedule.updatedAt) schedules.set(id, schedule);
        set({ schedules, loaded: true });
      } catch (error) {
        showRequestError(error);
      }
    },
    create: async (params) => {
      set({ creating: true });
      try {
        const { schedule } = await client.request('schedule/create', params);
        put(schedule);
        return schedule;
      } catch (error) {
        showRequestError(error);
        return null;
      } finally {
        set({ creating: false });
      }
    },
    update: async (params) => {
      set({ creating: true });
      try {
        const { schedule } = await client.request('schedule/update', params);
        put(schedule);
        return schedule;
      } catch (error) {
        showRequestError(error);
        return null;
      } finally {
        set({ creating: false });
      }
    },
    act: async (scheduleId, action) => {
      try {
        if (action === 'delete') {
          await client.request('schedule/delete', { scheduleId });
          drop(scheduleId);
          return null;
        }
        if (action === 'runNow') {
          const { schedule, jobId } = await client.request('schedule/runNow', { scheduleId });
          put(schedule);
          return jobId;
        }
        put((await client.request(`schedule/${action}`, { scheduleId })).schedule);
        return null;
      } catch (error) {
        showRequestError(error);
        return null;
      }
    },
  }));

  // Updates come in order from the runtime: the newest one wins (history changes move no timestamp).
  const put = (schedule: Schedule) => {
    const schedules = new Map(store.getState().schedules);
    schedules.set(schedule.id, schedule);
    store.setState({ schedules });
  };
  const drop = (scheduleId: string) => {
    const schedules = new Map(store.getState().schedules);
    if (!schedules.delete(scheduleId)) return;
    store.setState((state) => ({ schedules, focusedId: state.focusedId === scheduleId ? null : state.focusedId }));
  };
  client.on('schedule/updated', ({ schedule }) => put(schedule));
  client.on('schedule/deleted', ({ scheduleId }) => drop(scheduleId));
  client.onReady(() => {
    if (store.getState().loaded) void store.getState().load();
  });
  return store;
}
