import { z } from 'zod';
import { defineMethod } from '../define.js';
import { RuntimeEventEnvelope } from '../events.js';

export const eventMethods = {
  'events/replay': defineMethod(
    z.object({
      /** Return events with a larger seq (0 = from the start). */
      afterSeq: z.number().int().min(0),
      threadId: z.string().min(1).nullable().optional(),
      limit: z.number().int().min(1).max(10_000).nullable().optional(),
    }),
    z.object({
      events: z.array(RuntimeEventEnvelope),
      lastSeq: z.number().int(),
      /**
       * True when the log no longer holds every event after `afterSeq` (pruned,
       * or a seq this home never handed out): reload state instead of replaying.
       */
      reset: z.boolean(),
      /** The oldest seq from which the log is whole: replay from `oldestSeq - 1` or later misses nothing. */
      oldestSeq: z.number().int(),
    }),
    'Events after a seq, so a reconnecting client misses nothing.',
  ),
} as const;
