import type { NotificationMessage, RequestMessage, ThreadItem } from '../shared/protocol/index.js';
import { toolCallReply } from './agent-commands.js';
import type { ProtocolPeer } from './protocol-peer.js';

/** Helpers for tests where the mock model edits files (apply_patch) through a real runtime. */
export type FileChangeItem = Extract<ThreadItem, { type: 'fileChange' }>;

/** One model reply calling apply_patch with `patch` (Codex's JSON form: `{input}`). */
export function patchCall(patch: string, id = 'call_patch') {
  return toolCallReply('apply_patch', { input: patch }, id);
}

/** `*** Begin Patch` … `*** End Patch` around the given lines. */
export function patchOf(...lines: string[]): string {
  return ['*** Begin Patch', ...lines, '*** End Patch', ''].join('\n');
}

export async function fileApprovalRequest(peer: ProtocolPeer): Promise<RequestMessage> {
  const received = await peer.inbox.take(
    (r) => r.kind === 'request' && r.message.method === 'item/fileChange/requestApproval',
    'a file change approval request',
  );
  return received.message as RequestMessage;
}

export async function fileChangeItem(peer: ProtocolPeer, method: 'item/started' | 'item/completed'): Promise<FileChangeItem> {
  const received = await peer.inbox.take(
    (r) => r.kind === 'notification' && r.message.method === method && (r.message.params as { item: ThreadItem }).item.type === 'fileChange',
    `${method} of a file change`,
  );
  return ((received.message as NotificationMessage).params as { item: FileChangeItem }).item;
}
