import { z } from 'zod';
import type { ModelToolSpec } from '../../model/types.js';

export const APPLY_PATCH = 'apply_patch';

/** Codex's JSON form of the tool: the whole patch in `input`. */
export const ApplyPatchArgs = z.object({ input: z.string().min(1).max(4 * 1024 * 1024) });
export type ApplyPatchArgs = z.infer<typeof ApplyPatchArgs>;

export const applyPatchToolSpec: ModelToolSpec = {
  name: APPLY_PATCH,
  description: [
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
  ].join('\n'),
  parameters: {
    type: 'object',
    properties: { input: { type: 'string', description: 'The whole patch, from *** Begin Patch to *** End Patch.' } },
    required: ['input'],
    additionalProperties: false,
  },
};
