import { z } from 'zod';
import { defineMethod } from '../define.js';

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
