import { z } from 'zod';
import { defineMethod, defineNotification } from '../define.js';

const ToolName = z.string().min(1).max(64);
/** A JSON Schema object; compiled when the thread starts, so a broken one is refused at once. */
const InputSchema = z.record(z.string(), z.unknown());

/** A client-side function tool (Codex FunctionDynamicToolSpec). */
export const FunctionDynamicToolSpec = z.object({
  type: z.literal('function'),
  name: ToolName,
  description: z.string().max(4096),
  inputSchema: InputSchema,
  deferLoading: z.boolean().optional(),
});

/** A group of client-side tools offered to the model as `<namespace>__<name>` (Codex NamespaceDynamicToolSpec). */
export const NamespaceDynamicToolSpec = z.object({
  type: z.literal('namespace'),
  name: ToolName,
  description: z.string().max(4096),
  tools: z.array(FunctionDynamicToolSpec).min(1).max(128),
});

/** Codex DynamicToolSpec: tools the client runs itself, registered on thread/start. */
export const DynamicToolSpec = z.discriminatedUnion('type', [FunctionDynamicToolSpec, NamespaceDynamicToolSpec]);
export type DynamicToolSpec = z.infer<typeof DynamicToolSpec>;

/** One piece of a client-side tool's answer (Codex DynamicToolCallOutputContentItem, every variant). */
const ClientToolContentItem = z.discriminatedUnion('type', [
  z.object({ type: z.literal('inputText'), text: z.string() }),
  z.object({ type: z.literal('inputImage'), imageUrl: z.string() }),
  z.object({ type: z.literal('inputAudio'), audioUrl: z.string() }),
]);

/** A model call of a client-side tool, sent to the client to run (Codex DynamicToolCallParams). */
export const DynamicToolCallParams = z.object({
  threadId: z.string(),
  turnId: z.string(),
  callId: z.string(),
  namespace: z.string().nullable().optional(),
  tool: z.string(),
  /** Already checked against the tool's inputSchema. */
  arguments: z.unknown(),
});
export type DynamicToolCallParams = z.infer<typeof DynamicToolCallParams>;

/** The client's answer (Codex DynamicToolCallResponse). */
export const DynamicToolCallResponse = z.object({
  success: z.boolean(),
  contentItems: z.array(ClientToolContentItem),
});
export type DynamicToolCallResponse = z.infer<typeof DynamicToolCallResponse>;

/** Requests the server sends to a client for client-side (dynamic) tools. */
export const dynamicToolServerRequests = {
  'item/tool/call': defineMethod(
    DynamicToolCallParams,
    DynamicToolCallResponse,
    'Run a client-side tool the model called; answer {success, contentItems}.',
  ),
} as const;

/**
 * Seed 004's `tool_call.requested`: a client-side tool call of a thread
 * whose tools were registered over HTTP, waiting for
 * `POST /v1/threads/{id}/tool-calls/{call_id}`.
 */
export const dynamicToolNotifications = {
  'tool_call.requested': defineNotification(DynamicToolCallParams, 'A client-side tool call waits for its HTTP answer.'),
} as const;
