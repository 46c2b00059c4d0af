import { z } from 'zod';
import { defineMethod } from '../define.js';

/** How much, and how long, Wheelhouse keeps (`[wheelhouse.retention]` in config.toml). */
export const RetentionBudgets = z.object({
  /** Older events, logs and checkpoints go, unless an open thread, a running job or an approval still needs them. */
  maxAgeDays: z.number().int(),
  eventLogMb: z.number().int(),
  processLogsMb: z.number().int(),
  jobLogsMb: z.number().int(),
  checkpointsMb: z.number().int(),
});
export type RetentionBudgets = z.infer<typeof RetentionBudgets>;

/** For a laptop: a month, and under 2 GB all together. */
export const DEFAULT_RETENTION: RetentionBudgets = {
  maxAgeDays: 30,
  eventLogMb: 256,
  processLogsMb: 512,
  jobLogsMb: 1024,
  checkpointsMb: 128,
};

/** What the home takes on disk; the database holds the event log and the checkpoints. */
export const StorageUsage = z.object({
  databaseBytes: z.number().int(),
  eventLogBytes: z.number().int(),
  checkpointBytes: z.number().int(),
  processLogBytes: z.number().int(),
  jobLogBytes: z.number().int(),
  totalBytes: z.number().int(),
});
export type StorageUsage = z.infer<typeof StorageUsage>;

export const storageMethods = {
  'storage/usage': defineMethod(
    z.object({}).optional(),
    z.object({ usage: StorageUsage, budgets: RetentionBudgets }),
    'What Wheelhouse keeps on disk, and the budgets retention holds it to (Settings → Storage).',
  ),
} as const;
