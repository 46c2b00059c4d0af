import { z } from 'zod';

/**
 * Message envelopes of the Codex app-server v2 wire: JSON-RPC 2.0 without the
 * "jsonrpc" field (accepted and ignored when a client sends it).
 */
export const RequestId = z.union([z.string().max(256), z.number().int()]);
export type RequestId = z.infer<typeof RequestId>;

export const RequestMessage = z.object({
  id: RequestId,
  method: z.string().min(1).max(256),
  params: z.unknown().optional(),
});
export type RequestMessage = z.infer<typeof RequestMessage>;

export const NotificationMessage = z.object({
  method: z.string().min(1).max(256),
  params: z.unknown().optional(),
  /** Position in the runtime event log, when the notification was logged. */
  seq: z.number().int().optional(),
  /** When the server emitted it (Unix ms), as Codex stamps every notification. */
  emittedAtMs: z.number().int().optional(),
});
export type NotificationMessage = z.infer<typeof NotificationMessage>;

export const ErrorObject = z.object({
  code: z.number().int(),
  message: z.string(),
  data: z.unknown().optional(),
});

export const SuccessResponse = z.object({ id: RequestId, result: z.unknown() });
export const ErrorResponse = z.object({ id: RequestId.nullable(), error: ErrorObject });
export type SuccessResponse = z.infer<typeof SuccessResponse>;
export type ErrorResponse = z.infer<typeof ErrorResponse>;
export type ResponseMessage = SuccessResponse | ErrorResponse;

/** Any message either side may send. */
export type WireMessage = RequestMessage | NotificationMessage | ResponseMessage;

/** Classifies a parsed JSON value; `undefined` when it is no valid message. */
export function classifyMessage(
  value: unknown,
):
  | { kind: 'request'; message: RequestMessage }
  | { kind: 'notification'; message: NotificationMessage }
  | { kind: 'response'; message: ResponseMessage }
  | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  if ('method' in record) {
    if ('id' in record) {
      const parsed = RequestMessage.safeParse(record);
      return parsed.success ? { kind: 'request', message: parsed.data } : undefined;
    }
    const parsed = NotificationMessage.safeParse(record);
    return parsed.success ? { kind: 'notification', message: parsed.data } : undefined;
  }
  if ('result' in record) {
    const parsed = SuccessResponse.safeParse(record);
    return parsed.success ? { kind: 'response', message: parsed.data } : undefined;
  }
  if ('error' in record) {
    const parsed = ErrorResponse.safeParse(record);
    return parsed.success ? { kind: 'response', message: parsed.data } : undefined;
  }
  return undefined;
}
