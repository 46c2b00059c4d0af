import type { NotificationMessage, RequestMessage, ThreadItem, Turn } from '../shared/protocol/index.js';
import type { MockModelServer } from './mock-model/index.js';
import type { ProtocolPeer } from './protocol-peer.js';

/** Helpers for tests where the mock model runs commands (exec_command) through a real runtime. */
export type CommandItem = Extract<ThreadItem, { type: 'commandExecution' }>;

/** The config.toml of a home whose provider is the mock model (chat wire, no retries). */
export function mockModelConfig(mock: MockModelServer): string {
  return ['model = "deepseek-chat"', 'model_provider = "mock"', '[model_providers.mock]', 'name = "Mock"', `base_url = "${mock.url}"`, 'wire_api = "chat"', 'request_max_retries = 0', ''].join('\n');
}

/** One model reply calling a tool (exec_command by default). */
export function toolCallReply(name: string, args: Record<string, unknown>, id = `call_${name}`) {
  return [
    { type: 'toolCalls' as const, calls: [{ id, name, arguments: JSON.stringify(args) }] },
    { type: 'finish' as const, reason: 'tool_calls' as const },
  ];
}

export function execCall(cmd: string, extra: Record<string, unknown> = {}, id = 'call_exec') {
  return toolCallReply('exec_command', { cmd, ...extra }, id);
}

export const textReply = (text: string) => [{ type: 'text' as const, text }, { type: 'finish' as const }];

export async function approvalRequest(peer: ProtocolPeer): Promise<RequestMessage> {
  const received = await peer.inbox.take(
    (r) => r.kind === 'request' && r.message.method === 'item/commandExecution/requestApproval',
    'an approval request',
  );
  return received.message as RequestMessage;
}

export async function commandItem(peer: ProtocolPeer, method: 'item/started' | 'item/completed'): Promise<CommandItem> {
  const received = await peer.inbox.take(
    (r) => r.kind === 'notification' && r.message.method === method && (r.message.params as { item: ThreadItem }).item.type === 'commandExecution',
    `${method} of a command`,
  );
  return ((received.message as NotificationMessage).params as { item: CommandItem }).item;
}

export async function turnEnd(peer: ProtocolPeer): Promise<Turn> {
  return ((await peer.inbox.notification('turn/completed')).params as { turn: Turn }).turn;
}

/** The last tool result the runtime handed the model, as seen in request `index`. */
export function lastToolMessage(mock: MockModelServer, index: number): string {
  const messages = (mock.requests[index]!.body as { messages: { role: string; content: string }[] }).messages;
  return messages.filter((m) => m.role === 'tool').at(-1)?.content ?? '';
}
