import { create, type StoreApi, type UseBoundStore } from 'zustand';
import { RpcError } from '../../../shared/protocol/index.js';
import type { EnvironmentAddParams, EnvironmentSummary, EnvironmentTestResult } from '../../../shared/protocol/methods/environment.js';
import type { WheelhouseClient } from '../client/wheelhouse-client.js';

/** Why adding, changing or removing a machine did not happen: the runtime's words, and the jobs that still use it (`environment.inUse`). */
export interface MachineRefusal {
  readonly message: string;
  readonly jobs: readonly { readonly jobId: string; readonly name: string; readonly status: string }[];
}

export type MachineOutcome = { readonly ok: true } | { readonly ok: false; readonly refusal: MachineRefusal };

export interface MachinesState {
  /** Every machine jobs can run on, this computer first; null until loaded. */
  readonly list: readonly EnvironmentSummary[] | null;
  readonly loadError: string | null;
  /** The last test of each machine (by id), and which are being tested. */
  readonly tests: Readonly<Record<string, EnvironmentTestResult>>;
  readonly testing: ReadonlySet<string>;
  load(): Promise<void>;
  /** Adds a machine, or replaces the one with the same id (an edit; refused while a job runs there). */
  add(params: EnvironmentAddParams): Promise<MachineOutcome>;
  /** Connects and runs `uname -a` and `id`; `trustHostKey`: the fingerprint the person was shown and accepts. */
  test(environmentId: string, trustHostKey?: string): Promise<void>;
  remove(environmentId: string): Promise<MachineOutcome>;
}

/**
 * Settings → Machines and the job dialog's "Run on": the runtime's
 * environments (environment/*). Every decision is the runtime's; a machine
 * whose connection comes or goes arrives as environment/status/changed.
 */
export function createMachinesStore(client: WheelhouseClient): UseBoundStore<StoreApi<MachinesState>> {
  const store = create<MachinesState>()((set, get) => ({
    list: null,
    loadError: null,
    tests: {},
    testing: new Set(),
    load: async () => {
      try {
        set({ list: (await client.request('environment/list', {})).data, loadError: null });
      } catch (error) {
        set({ loadError: messageOf(error) });
      }
    },
    add: async (params) => {
      try {
        await client.request('environment/add', params);
        await get().load();
        return { ok: true };
      } catch (error) {
        return { ok: false, refusal: refusalOf(error) };
      }
    },
    test: async (environmentId, trustHostKey) => {
      set({ testing: new Set([...get().testing, environmentId]) });
      let result: EnvironmentTestResult;
      try {
        result = await client.request('environment/test', { environmentId, ...(trustHostKey ? { trustHostKey } : {}) });
      } catch (error) {
        result = { ok: false, latencyMs: null, connectMs: null, uname: null, id: null, scheduler: null, unknownHostKey: null, error: messageOf(error) };
      }
      const testing = new Set(get().testing);
      testing.delete(environmentId);
      set({ tests: { ...get().tests, [environmentId]: result }, testing });
      await get().load();
    },
    remove: async (environmentId) => {
      try {
        await client.request('environment/remove', { environmentId });
        const tests = { ...get().tests };
        delete tests[environmentId];
        set({ tests });
        await get().load();
        return { ok: true };
      } catch (error) {
        return { ok: false, refusal: refusalOf(error) };
      }
    },
  }));
  client.on('environment/status/changed', (change) => {
    const list = store.getState().list;
    if (!list) return;
    store.setState({ list: list.map((machine) => (machine.environmentId === change.environmentId ? { ...machine, status: change.status, error: change.error } : machine)) });
  });
  return store;
}

function refusalOf(error: unknown): MachineRefusal {
  const data = error instanceof RpcError && error.reason === 'environment.inUse' ? (error.data as { jobs?: MachineRefusal['jobs'] }) : null;
  return { message: messageOf(error), jobs: data?.jobs ?? [] };
}

/** The runtime's own words, without the method prefix. */
function messageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^invalid params for [^:]+: /, '');
}

/** The name a job's `environmentId` shows as: the machine's name, or the id of one no longer listed. */
export function machineName(list: readonly EnvironmentSummary[] | null, environmentId: string | undefined): string {
  if (environmentId === undefined || environmentId === 'local') return 'This computer';
  return list?.find((machine) => machine.environmentId === environmentId)?.name ?? environmentId;
}
