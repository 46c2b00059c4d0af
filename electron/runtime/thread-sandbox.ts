import { RpcError } from '../../shared/protocol/errors.js';
import type { HandlerParamsOf } from '../../shared/protocol/registry.js';
import type { ThreadSandboxState } from '../../shared/protocol/methods/thread-sandbox.js';
import type { AskForApproval, SandboxMode } from '../../shared/protocol/thread.js';
import type { SandboxStatus } from '../exec/index.js';
import { sandboxPolicyOf } from './thread-mapper.js';
import type { EventLog } from './event-log.js';
import type { ThreadManager } from './thread-manager.js';

export interface ThreadSandboxDeps {
  readonly threads: ThreadManager;
  readonly events: EventLog;
  readonly sandboxStatus: () => Promise<SandboxStatus>;
  readonly now: () => number;
  /** The project a thread's folder belongs to (a separate copy belongs to the checkout it came from); default: the folder. */
  readonly projectOf?: (cwd: string) => string;
}

/** What the commands of a thread run under, with the app's defaults filled in. */
export interface CommandSettings {
  readonly approvalPolicy: AskForApproval;
  readonly sandbox: SandboxMode;
  /** The thread's project, whose own rules apply beside the home's; null without a thread. */
  readonly project?: string | null;
}

const MODE_NAMES: Record<SandboxMode, string> = {
  'read-only': 'Read only',
  'workspace-write': 'Workspace write',
  'danger-full-access': 'Full access',
};

/**
 * Each thread's sandbox mode and approval policy: what its commands run
 * under (defaults: workspace-write where a sandbox exists, else full access,
 * and "untrusted", so nothing runs unconfined or unreviewed without the
 * person's yes), shown in the conversation header and changed there.
 */
export class ThreadSandboxSettings {
  constructor(private readonly deps: ThreadSandboxDeps) {}

  async commandSettings(threadId: string | null): Promise<CommandSettings> {
    const record = threadId === null ? null : this.deps.threads.require(threadId).record;
    const chosenSandbox = (record?.sandboxPolicy ?? null) as SandboxMode | null;
    const sandboxWorks = (await this.deps.sandboxStatus()).available;
    const sandbox: SandboxMode = chosenSandbox ?? (sandboxWorks ? 'workspace-write' : 'danger-full-access');
    const approvalPolicy = ((record?.approvalMode ?? null) as AskForApproval | null) ?? 'untrusted';
    const project = record ? (this.deps.projectOf?.(record.cwd) ?? record.cwd) : null;
    return { approvalPolicy, sandbox, project };
  }

  /**
   * A thread/start, resume or fork result with the approval policy and
   * sandbox its commands really run under (the defaults filled in), so a
   * Codex client is not told `never` / read-only while commands ask and write.
   */
  async withEffectiveSettings<R extends { thread: { id: string; cwd: string }; approvalPolicy: unknown; sandbox: unknown }>(result: R): Promise<R> {
    const settings = await this.commandSettings(result.thread.id);
    return {
      ...result,
      // Codex's wire enum has no `on-failure`; it reads as `on-request` there.
      approvalPolicy: settings.approvalPolicy === 'on-failure' ? 'on-request' : settings.approvalPolicy,
      sandbox: sandboxPolicyOf(settings.sandbox, result.thread.cwd),
    };
  }

  async read(threadId: string): Promise<ThreadSandboxState> {
    const { record } = this.deps.threads.require(threadId);
    const status = await this.deps.sandboxStatus();
    const settings = await this.commandSettings(threadId);
    return {
      threadId,
      sandbox: settings.sandbox,
      approvalPolicy: settings.approvalPolicy,
      sandboxChosen: record.sandboxPolicy !== null,
      approvalPolicyChosen: record.approvalMode !== null,
      sandboxAvailable: status.available,
      sandboxKind: status.available ? status.kind : null,
      sandboxUnavailableReason: status.available ? null : status.reason,
      sandboxNote: status.available ? status.note : null,
      summary: summaryOf(settings.sandbox, status),
    };
  }

  /** Codex's thread/settings/update: approval policy and sandbox for the thread's next commands. */
  async update(params: HandlerParamsOf<'thread/settings/update'>): Promise<Record<string, never>> {
    const { threadId, approvalPolicy, sandboxPolicy, ...others } = params;
    const { record, store } = this.deps.threads.require(threadId);
    const unsupported = Object.entries(others)
      .filter(([, value]) => value !== null && value !== undefined)
      .map(([key]) => key);
    if (unsupported.length > 0) {
      throw RpcError.invalidParams(`Wheelhouse’s thread/settings/update changes approvalPolicy and sandboxPolicy only, not: ${unsupported.join(', ')}`);
    }
    if (approvalPolicy && typeof approvalPolicy === 'object') {
      throw RpcError.invalidParams('a granular approvalPolicy cannot be set on a thread yet; use untrusted, on-request, on-failure or never');
    }
    let sandbox: SandboxMode | undefined;
    if (sandboxPolicy) {
      if (sandboxPolicy.type === 'externalSandbox') throw RpcError.invalidParams('sandboxPolicy externalSandbox is not supported');
      if (sandboxPolicy.type !== 'dangerFullAccess' && sandboxPolicy.networkAccess) {
        throw RpcError.invalidParams('network access inside the sandbox cannot be turned on yet; use dangerFullAccess to run with network');
      }
      if (sandboxPolicy.type === 'workspaceWrite' && (sandboxPolicy.writableRoots ?? []).some((root) => root !== record.cwd)) {
        throw RpcError.invalidParams(`workspaceWrite writes only to the thread’s folder (${record.cwd}); other writableRoots are not supported yet`);
      }
      sandbox = sandboxPolicy.type === 'dangerFullAccess' ? 'danger-full-access' : sandboxPolicy.type === 'readOnly' ? 'read-only' : 'workspace-write';
      const status = await this.deps.sandboxStatus();
      if (sandbox !== 'danger-full-access' && !status.available) {
        throw RpcError.invalidParams(`no sandbox on this machine (${status.reason}): commands can only run with full access (dangerFullAccess)`);
      }
    }
    if (sandbox === undefined && !approvalPolicy) return {};
    store.threads.update(record.id, {
      ...(sandbox !== undefined ? { sandboxPolicy: sandbox } : {}),
      ...(approvalPolicy ? { approvalMode: approvalPolicy } : {}),
      updatedAtMs: this.deps.now(),
    });
    const state = await this.read(threadId);
    this.deps.events.publish('thread/sandbox/changed', state, { threadId, ephemeral: record.ephemeral });
    return {};
  }
}

/** The header's one line: where commands run, said plainly when there is no sandbox. */
export function summaryOf(sandbox: SandboxMode, status: SandboxStatus): string {
  if (!status.available) {
    return sandbox === 'danger-full-access'
      ? 'No sandbox on this machine — commands run with your full access'
      : `${MODE_NAMES[sandbox]} chosen, but there is no sandbox on this machine — commands cannot run until you choose full access`;
  }
  if (sandbox === 'danger-full-access') return 'Full access · not sandboxed';
  return `${MODE_NAMES[sandbox]} · sandboxed (${status.kind}${status.note ? ', limited here' : ''})`;
}
