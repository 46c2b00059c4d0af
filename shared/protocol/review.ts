import { z } from 'zod';

/**
 * What a review turn found. Codex's review output (`ReviewOutputEvent`: findings with a
 * file and line range, a priority and a confidence, and an overall verdict), in the v2
 * wire's camelCase; Wheelhouse adds each finding's `path` relative to the repository.
 */
export const ReviewLineRange = z.object({ start: z.number().int().min(0), end: z.number().int().min(0) });

export const ReviewFinding = z.object({
  title: z.string(),
  /** Markdown: why it is a problem. */
  body: z.string(),
  confidenceScore: z.number().min(0).max(1),
  /** 0 (drop everything) to 3 (nice to have); null when the model gave none. */
  priority: z.number().int().min(0).max(3).nullable(),
  codeLocation: z.object({ absoluteFilePath: z.string(), lineRange: ReviewLineRange }),
  /** Wheelhouse's: the file relative to the repository's top folder, as the Changes panel names it; null when outside it. */
  path: z.string().nullable(),
});
export type ReviewFinding = z.infer<typeof ReviewFinding>;

export const ReviewOutput = z.object({
  findings: z.array(ReviewFinding),
  /** Codex: "patch is correct" or "patch is incorrect" (empty when the model gave no verdict). */
  overallCorrectness: z.string(),
  overallExplanation: z.string(),
  overallConfidenceScore: z.number().min(0).max(1).nullable(),
});
export type ReviewOutput = z.infer<typeof ReviewOutput>;
