import { create, type StoreApi, type UseBoundStore } from 'zustand';
import type {
  ExecPolicyCheckResult,
  ExecPolicyRuleChange,
  ExecPolicyRulesListResult,
} from '../../../shared/protocol/methods/exec-policy.js';
import type { WheelhouseClient } from '../client/wheelhouse-client.js';

export type RulesOutcome = { readonly ok: true } | { readonly ok: false; readonly message: string };

export interface RulesState {
  /** Null until loaded (or while the runtime cannot be reached). */
  readonly list: ExecPolicyRulesListResult | null;
  readonly loadError: string | null;
  load(): Promise<void>;
  /** One add / edit / delete; the runtime validates it and answers the new list, or says what is wrong. */
  write(change: ExecPolicyRuleChange): Promise<RulesOutcome>;
  check(command: string, threadId: string | null): Promise<{ ok: true; result: ExecPolicyCheckResult } | { ok: false; message: string }>;
}

/**
 * The exec-policy rules for the rules editor in Settings. Every decision is
 * the runtime's (execPolicy/check); this store only shows and asks. A rules
 * file changed on disk arrives as execPolicy/rules/changed and is listed again.
 */
export function createRulesStore(client: WheelhouseClient): UseBoundStore<StoreApi<RulesState>> {
  const store = create<RulesState>()((set) => ({
    list: null,
    loadError: null,
    load: async () => {
      try {
        set({ list: await client.request('execPolicy/rules/list', {}), loadError: null });
      } catch (error) {
        set({ loadError: messageOf(error) });
      }
    },
    write: async (change) => {
      try {
        set({ list: await client.request('execPolicy/rules/write', { change }) });
        return { ok: true };
      } catch (error) {
        return { ok: false, message: messageOf(error) };
      }
    },
    check: async (command, threadId) => {
      try {
        return { ok: true, result: await client.request('execPolicy/check', { command, threadId }) };
      } catch (error) {
        return { ok: false, message: messageOf(error) };
      }
    },
  }));
  client.on('execPolicy/rules/changed', () => {
    // Only worth a request while the editor has shown the list once.
    if (store.getState().list !== null) void store.getState().load();
  });
  return store;
}

/** The runtime's own words ("invalid params for …: rule.pattern: a rule needs …"), without the method prefix. */
function messageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^invalid params for [^:]+: /, '').replace(/^change\.rule\.(\w+)[.\d]*: /, '$1: ');
}
