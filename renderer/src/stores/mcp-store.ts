import { create, type StoreApi, type UseBoundStore } from 'zustand';
import type { McpServerStatus } from '../../../shared/protocol/methods/mcp.js';
import type { WheelhouseClient } from '../client/wheelhouse-client.js';
import { showRequestError } from './toast-store.js';

/** What the add/edit form of a server saves (one transport or the other). */
export interface McpServerDraft {
  readonly name: string;
  readonly command: string;
  /** One argument per line. */
  readonly args: string;
  readonly url: string;
}

export type McpApprovalMode = McpServerStatus['settings']['defaultToolsApprovalMode'];

export type McpSaveOutcome = { readonly ok: true } | { readonly ok: false; readonly message: string };

export interface McpState {
  readonly servers: readonly McpServerStatus[];
  /** Whether the Connections page is showing (instead of the conversation). */
  readonly open: boolean;
  setOpen(open: boolean): void;
  load(): Promise<void>;
  restart(name: string): Promise<void>;
  setEnabled(name: string, enabled: boolean): Promise<void>;
  remove(name: string): Promise<void>;
  /** When the agent's calls of a server's tools ask the person (Codex's `default_tools_approval_mode`). */
  setServerApproval(name: string, mode: McpApprovalMode): Promise<void>;
  /** Trust one tool (`approval_mode = "approve"`), or drop its own setting so the server's applies. */
  setToolTrusted(name: string, tool: string, trusted: boolean): Promise<void>;
  /** Adds a server, or changes the transport of an existing one (other keys are kept). */
  save(draft: McpServerDraft, existing: boolean): Promise<McpSaveOutcome>;
}

/** MCP servers for the Connections page and the sidebar badge; every change goes through config.toml writes. */
export function createMcpStore(client: WheelhouseClient): UseBoundStore<StoreApi<McpState>> {
  let loading: Promise<void> | null = null;
  let again = false;
  const store = create<McpState>()((set, get) => ({
    servers: [],
    open: false,
    setOpen: (open) => {
      set({ open });
      if (open) void get().load();
    },
    load: async () => {
      // One list request at a time; updates that arrive meanwhile ask for one more.
      if (loading) {
        again = true;
        return loading;
      }
      loading = (async () => {
        do {
          again = false;
          try {
            const { data } = await client.request('mcpServerStatus/list', { detail: 'toolsAndAuthOnly' });
            set({ servers: data });
          } catch {
            // Disconnected: the list is fetched again on the next connect.
          }
        } while (again);
      })();
      try {
        await loading;
      } finally {
        loading = null;
      }
    },
    restart: async (name) => {
      try {
        await client.request('mcpServer/restart', { name });
      } catch (error) {
        showRequestError(error);
      }
    },
    setEnabled: async (name, enabled) => {
      try {
        await client.request('config/value/write', { keyPath: `mcp_servers.${name}.enabled`, value: enabled });
        await get().load();
      } catch (error) {
        showRequestError(error);
      }
    },
    setServerApproval: async (name, mode) => {
      try {
        await client.request('config/value/write', { keyPath: `mcp_servers.${name}.default_tools_approval_mode`, value: mode });
        await get().load();
      } catch (error) {
        showRequestError(error);
      }
    },
    setToolTrusted: async (name, tool, trusted) => {
      try {
        // Trusting merges into the tools table (keyed by the tool's name, whatever characters it has); other keys stay.
        if (trusted) {
          await client.request('config/value/write', { keyPath: `mcp_servers.${name}.tools`, value: { [tool]: { approval_mode: 'approve' } }, mergeStrategy: 'upsert' });
        } else {
          await client.request('config/value/write', { keyPath: `mcp_servers.${name}.tools.${tool}.approval_mode`, value: null });
        }
        await get().load();
      } catch (error) {
        showRequestError(error);
      }
    },
    remove: async (name) => {
      try {
        await client.request('config/value/write', { keyPath: `mcp_servers.${name}`, value: null });
        await get().load();
      } catch (error) {
        showRequestError(error);
      }
    },
    save: async (draft, existing) => {
      const name = draft.name.trim();
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) return { ok: false, message: 'Name: letters, digits, "-" and "_" only.' };
      if (!existing && get().servers.some((s) => s.name === name)) return { ok: false, message: `A server named "${name}" exists.` };
      const command = draft.command.trim();
      const url = draft.url.trim();
      if ((command === '') === (url === '')) return { ok: false, message: 'Give a command (stdio) or a URL (streamable HTTP), not both.' };
      const args = draft.args.split('\n').map((line) => line.trim()).filter((line) => line.length > 0);
      // Upsert keeps the server's other keys (env, timeouts, tool lists); the other transport's keys are removed.
      const table = command
        ? { command, args, ...(existing ? { url: null } : {}) }
        : { url, ...(existing ? { command: null, args: null } : {}) };
      try {
        await client.request('config/value/write', { keyPath: `mcp_servers.${name}`, value: table, mergeStrategy: 'upsert' });
        await get().load();
        return { ok: true };
      } catch (error) {
        return { ok: false, message: error instanceof Error ? error.message : String(error) };
      }
    },
  }));
  client.onReady(() => void store.getState().load());
  client.on('mcpServer/startupStatus/updated', () => void store.getState().load());
  client.on('config/changed', ({ keyPaths }) => {
    if (keyPaths.some((k) => k === 'mcp_servers' || k.startsWith('mcp_servers.'))) void store.getState().load();
  });
  return store;
}
