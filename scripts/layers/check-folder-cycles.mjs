// Fails on any cycle of folders in the layered code (see folders.mjs) not in
// known-folder-cycles.mjs, naming one loop and the import behind each step.
// Run by `npm run lint`.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cycleProblems, folderGraph } from './folders.mjs';
import { KNOWN_FOLDER_CYCLES } from './known-folder-cycles.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const problems = cycleProblems(folderGraph(repoRoot), KNOWN_FOLDER_CYCLES);
if (problems.length > 0) {
  console.error(problems.join('\n\n'));
  process.exit(1);
}
