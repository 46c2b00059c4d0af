import { z } from 'zod';
import { defineTool, type ToolEntry, type ToolInvocation } from '../tools/tool-table.js';
import type { ActiveTurn } from '../active-turn.js';
import type { PatchRunner } from './patch-runner.js';

export const APPLY_PATCH = 'apply_patch';

/** Codex's JSON form of the tool: the whole patch in `input`. */
export const ApplyPatchArgs = z.object({
  input: z.string().min(1).max(4 * 1024 * 1024).describe('The whole patch, from *** Begin Patch to *** End Patch.'),
});
export type ApplyPatchArgs = z.infer<typeof ApplyPatchArgs>;

const DESCRIPTION = [
  'Create, change, delete or rename files in the project folder with one patch. Nothing is written unless every part of the patch applies; changes may need the person\'s approval.',
  'Format (paths relative to the project folder, never absolute):',
  '*** Begin Patch',
  '*** Add File: path        then every line of the new file, each starting with +',
  '*** Delete File: path',
  '*** Update File: path',
  '*** Move to: new/path     (optional, right after Update File, to rename)',
  '@@ optional line naming the function or class the change is in',
  ' unchanged context line (start with a space; about 3 lines before and after each change)',
  '-removed line',
  '+added line',
  '*** End of File           (optional: the change is at the end of the file)',
  '*** End Patch',
].join('\n');

/** The model sometimes sends the bare patch instead of {"input": ...}; Codex's freeform tool takes it that way. */
const barePatch = (text: unknown): unknown => (typeof text === 'string' && text.trimStart().startsWith('*** Begin Patch') ? { input: text } : text);

/** apply_patch (its calls are `fileChange` items), as a row of the tool table. */
export function applyPatchTool(patches: PatchRunner): ToolEntry<ActiveTurn> {
  return defineTool({
    name: APPLY_PATCH,
    description: DESCRIPTION,
    args: ApplyPatchArgs,
    prepare: barePatch,
    run: (args, { turn, call, input, permission }: ToolInvocation<ActiveTurn>) => patches.applyPatch(turn, call, input, { args, permission }),
    refuse: (refusal, { turn, call, input }) => patches.applyPatch(turn, call, input, { refusal }),
  });
}
