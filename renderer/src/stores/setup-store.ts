import { create, type StoreApi, type UseBoundStore } from 'zustand';
import type { ConfigImportCodeWhaleResult, ConfigReadResult, ModelTestResult } from '../../../shared/protocol/methods/config.js';
import type { WorkspaceDirectoryListResult } from '../../../shared/protocol/methods/workspace.js';
import type { WheelhouseClient } from '../client/wheelhouse-client.js';
import { configEditsFor, isUsable, providerIdFor, unsavedProviderFor, type ProviderForm } from './setup-plan.js';

/** Whether the setup screen shows, and as what. */
export type SetupMode = 'hidden' | 'firstRun' | 'settings';

/** A field Settings opens on, for an error whose one action is there ("Edit key", "Choose a model"). */
export type SettingsFocus = 'apiKey' | 'model';

/** The state of the Test button. */
export type TestState =
  | { readonly status: 'idle' }
  | { readonly status: 'running' }
  | { readonly status: 'done'; readonly result: ModelTestResult }
  | { readonly status: 'failed'; readonly message: string };

/** The answer to a folder lookup, for the folder field and the browser. */
export type FolderLookup =
  | { readonly ok: true; readonly listing: WorkspaceDirectoryListResult }
  | { readonly ok: false; readonly message: string };

/** The answer to a CodeWhale import: what was imported and the configuration after it, or the runtime's message. */
export type CodeWhaleImportOutcome =
  | { readonly ok: true; readonly result: ConfigImportCodeWhaleResult; readonly config: ConfigReadResult }
  | { readonly ok: false; readonly message: string };

export interface SetupState {
  readonly mode: SetupMode;
  readonly config: ConfigReadResult | null;
  /** Why the last config/read failed (null once one succeeds): Settings shows it with a Retry instead of spinning. */
  readonly loadError: string | null;
  readonly test: TestState;
  readonly saving: boolean;
  /** The field Settings was opened for; null: the first field. */
  readonly focus: SettingsFocus | null;
  /** Counts `config/changed` notifications: a view that sent the person to Settings sees when something was saved. */
  readonly configRevision: number;
  /** Re-reads the configuration; shows first run when no provider can run a turn. */
  refresh(): Promise<void>;
  /** Opens Settings, on `focus` when an error's action is there. */
  openSettings(focus?: SettingsFocus): void;
  close(): void;
  /** "Set up later": first run stays away until Settings is opened. */
  defer(): void;
  /** Writes the provider (and a typed key) to the configuration; resolves with an error message or null. */
  saveProvider(form: ProviderForm): Promise<string | null>;
  /** Removes a provider's stored key; resolves with an error message or null. */
  removeApiKey(providerId: string): Promise<string | null>;
  /** Sends a real one-line prompt through the provider as typed, without saving anything (Start saves). */
  testProvider(form: ProviderForm): Promise<void>;
  resetTest(): void;
  listFolder(path: string | null): Promise<FolderLookup>;
  /** Imports CodeWhale's providers (from `~/.codewhale/config.toml` when path is null), then re-reads the configuration. */
  importCodeWhale(path: string | null): Promise<CodeWhaleImportOutcome>;
  /** Ends first run (or Settings) and lets the rest of the window through. */
  finish(): void;
}

const DEFERRED_KEY = 'wheelhouse.setupDeferred';

/**
 * First run and Settings: the configuration as the runtime reports it, and
 * the writes that set a provider up. Keys go to the runtime's secure storage
 * only (config/provider/setApiKey) and are never kept here.
 */
export function createSetupStore(client: WheelhouseClient, storage: Storage): UseBoundStore<StoreApi<SetupState>> {
  const store = create<SetupState>()((set, get) => ({
    mode: 'hidden',
    config: null,
    loadError: null,
    test: { status: 'idle' },
    saving: false,
    focus: null,
    configRevision: 0,

    refresh: async () => {
      try {
        const config = await client.request('config/read', {});
        const firstRun = !isUsable(config) && storage.getItem(DEFERRED_KEY) === null;
        set((state) => ({ config, loadError: null, mode: state.mode === 'hidden' && firstRun ? 'firstRun' : state.mode }));
      } catch (error) {
        // Leave the window usable; Settings shows the failure when opened.
        set({ loadError: error instanceof Error ? error.message : String(error) });
      }
    },

    openSettings: (focus) => {
      set({ mode: 'settings', test: { status: 'idle' }, loadError: null, focus: focus ?? null });
      void get().refresh();
    },

    close: () => set({ mode: 'hidden' }),

    defer: () => {
      storage.setItem(DEFERRED_KEY, '1');
      set({ mode: 'hidden' });
    },

    saveProvider: async (form) => {
      set({ saving: true });
      try {
        await client.request('config/batchWrite', { edits: configEditsFor(form) });
        const key = form.apiKey.trim();
        if (key !== '') await client.request('config/provider/setApiKey', { providerId: providerIdFor(form), apiKey: key });
        set({ config: await client.request('config/read', {}) });
        return null;
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      } finally {
        set({ saving: false });
      }
    },

    removeApiKey: async (providerId) => {
      try {
        await client.request('config/provider/clearApiKey', { providerId });
        set({ config: await client.request('config/read', {}) });
        return null;
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      }
    },

    testProvider: async (form) => {
      set({ test: { status: 'running' } });
      try {
        const model = form.model.trim();
        const result = await client.request('model/test', {
          providerId: providerIdFor(form),
          unsaved: unsavedProviderFor(form),
          ...(model ? { model } : {}),
        });
        set({ test: { status: 'done', result } });
      } catch (error) {
        set({ test: { status: 'failed', message: error instanceof Error ? error.message : String(error) } });
      }
    },

    resetTest: () => set({ test: { status: 'idle' } }),

    listFolder: async (path) => {
      try {
        return { ok: true, listing: await client.request('workspace/directory/list', path ? { path } : {}) };
      } catch (error) {
        return { ok: false, message: error instanceof Error ? error.message : String(error) };
      }
    },

    importCodeWhale: async (path) => {
      try {
        const result = await client.request('config/import/codewhale', path ? { path } : {});
        const config = await client.request('config/read', {});
        set({ config, test: { status: 'idle' } });
        return { ok: true, result, config };
      } catch (error) {
        return { ok: false, message: error instanceof Error ? error.message : String(error) };
      }
    },

    finish: () => {
      storage.removeItem(DEFERRED_KEY);
      set({ mode: 'hidden', test: { status: 'idle' } });
    },
  }));
  client.on('config/changed', () => {
    store.setState((state) => ({ configRevision: state.configRevision + 1 }));
    void store.getState().refresh();
  });
  client.onReady(() => void store.getState().refresh());
  return store;
}
