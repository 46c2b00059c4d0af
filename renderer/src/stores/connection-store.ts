import { create, type StoreApi, type UseBoundStore } from 'zustand';
import type { ConnectionSnapshot, WheelhouseClient } from '../client/wheelhouse-client.js';

export interface ConnectionState extends ConnectionSnapshot {
  /** Tries to connect again now instead of waiting for the next backoff step. */
  retry(): void;
}

/** Mirrors the client's connection status for the UI. */
export function createConnectionStore(client: WheelhouseClient): UseBoundStore<StoreApi<ConnectionState>> {
  const store = create<ConnectionState>()(() => ({
    ...client.getSnapshot(),
    retry: () => client.retryNow(),
  }));
  client.onStatus((snapshot) => store.setState({ ...snapshot }));
  return store;
}
