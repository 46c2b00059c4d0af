import { z } from 'zod';

export const RUNTIME_EVENT_SCHEMA_VERSION = 1;

/** One logged event with its place in the log (seed 004 RuntimeEventEnvelope, camelCase). */
export const RuntimeEventEnvelope = z.object({
  schemaVersion: z.number().int(),
  seq: z.number().int(),
  /** The notification method, e.g. `item/agentMessage/delta`. */
  event: z.string(),
  /** The namespace of the event, e.g. `item`, `turn`, `thread`. */
  kind: z.string(),
  threadId: z.string().nullable(),
  turnId: z.string().nullable(),
  itemId: z.string().nullable(),
  /** ISO-8601 time the event happened. */
  timestamp: z.string(),
  payload: z.unknown(),
});
export type RuntimeEventEnvelope = z.infer<typeof RuntimeEventEnvelope>;
