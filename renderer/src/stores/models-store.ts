import { create, type StoreApi, type UseBoundStore } from 'zustand';
import type { ModelListResult } from '../../../shared/protocol/methods/config.js';
import type { WheelhouseClient } from '../client/wheelhouse-client.js';

/** One provider's model list as the picker shows it. */
export type ModelList =
  | { readonly status: 'loading' }
  | { readonly status: 'ready'; readonly result: ModelListResult }
  | { readonly status: 'failed'; readonly message: string };

export interface ModelsState {
  readonly lists: Readonly<Record<string, ModelList>>;
  /** Fetches a provider's models unless they are loaded or loading. */
  load(providerId: string): Promise<void>;
}

/** Model lists per provider for the model picker; dropped when the configuration changes. */
export function createModelsStore(client: WheelhouseClient): UseBoundStore<StoreApi<ModelsState>> {
  const store = create<ModelsState>()((set, get) => ({
    lists: {},
    load: async (providerId) => {
      const current = get().lists[providerId];
      if (current && current.status !== 'failed') return;
      const put = (list: ModelList) => set((state) => ({ lists: { ...state.lists, [providerId]: list } }));
      put({ status: 'loading' });
      try {
        put({ status: 'ready', result: await client.request('model/list', { providerId }) });
      } catch (error) {
        put({ status: 'failed', message: error instanceof Error ? error.message : String(error) });
      }
    },
  }));
  client.on('config/changed', () => store.setState({ lists: {} }));
  client.onReady(() => store.setState({ lists: {} }));
  return store;
}
