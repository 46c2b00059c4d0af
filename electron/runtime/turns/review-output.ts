import path from 'node:path';
import { z } from 'zod';
import type { ReviewFinding, ReviewOutput } from '../../../shared/protocol/index.js';

/** Codex's review output as the model writes it (snake_case, see REVIEW_INSTRUCTIONS). */
const ModelFinding = z.object({
  title: z.string(),
  body: z.string(),
  confidence_score: z.number(),
  priority: z.number().int().nullable().optional(),
  code_location: z.object({
    absolute_file_path: z.string(),
    line_range: z.object({ start: z.number().int(), end: z.number().int() }),
  }),
});
const ModelReviewOutput = z.object({
  findings: z.array(ModelFinding).default([]),
  overall_correctness: z.string().default(''),
  overall_explanation: z.string().default(''),
  overall_confidence_score: z.number().nullable().optional(),
});

/**
 * The model's answer as review output, as Codex reads it: the whole text as JSON, else the
 * part from the first `{` to the last `}`; if neither parses, the text is the explanation
 * and there are no findings. `root` is the repository the paths belong to (null: none).
 */
export function parseReviewOutput(text: string, root: string | null): ReviewOutput {
  const parsed = parseJson(text) ?? parseJson(text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1));
  const output = parsed ? ModelReviewOutput.safeParse(parsed) : null;
  if (!output?.success) return { findings: [], overallCorrectness: '', overallExplanation: text.trim(), overallConfidenceScore: null };
  const o = output.data;
  return {
    findings: o.findings.map((f) => toFinding(f, root)),
    overallCorrectness: o.overall_correctness,
    overallExplanation: o.overall_explanation,
    overallConfidenceScore: o.overall_confidence_score == null ? null : clamp01(o.overall_confidence_score),
  };
}

/** The review as text (the exitedReviewMode item's `review`): the explanation, then each finding with its place and body. */
export function renderReview(output: ReviewOutput): string {
  const parts: string[] = [];
  if (output.overallExplanation.trim()) parts.push(output.overallExplanation.trim());
  if (output.findings.length > 0) {
    const lines = [output.findings.length === 1 ? 'Review comment:' : 'Full review comments:'];
    for (const f of output.findings) {
      const { start, end } = f.codeLocation.lineRange;
      lines.push('', `- ${f.title} — ${f.codeLocation.absoluteFilePath}:${start}-${end}`);
      for (const line of f.body.split('\n')) lines.push(line ? `  ${line}` : '');
    }
    parts.push(lines.join('\n'));
  }
  return parts.length > 0 ? parts.join('\n\n') : 'The reviewer gave no answer.';
}

function toFinding(f: z.infer<typeof ModelFinding>, root: string | null): ReviewFinding {
  const start = Math.max(0, f.code_location.line_range.start);
  const end = Math.max(start, f.code_location.line_range.end);
  const priority = f.priority != null && f.priority >= 0 && f.priority <= 3 ? f.priority : null;
  return {
    title: f.title,
    body: f.body,
    confidenceScore: clamp01(f.confidence_score),
    priority,
    codeLocation: { absoluteFilePath: f.code_location.absolute_file_path, lineRange: { start, end } },
    path: relativeTo(root, f.code_location.absolute_file_path),
  };
}

/** The file relative to the repository, as git names it; null when it lies outside (or there is no repository). */
function relativeTo(root: string | null, file: string): string | null {
  if (!root) return null;
  const absolute = path.isAbsolute(file) ? path.normalize(file) : path.join(root, file);
  const relative = path.relative(root, absolute);
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return null;
  return relative.split(path.sep).join('/');
}

function parseJson(text: string): unknown {
  if (!text.trim()) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

const clamp01 = (n: number) => Math.min(1, Math.max(0, n));
