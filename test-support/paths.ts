import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Root of the repository, whatever folder the tests run from. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The `wheelhouse` command as a user runs it (needs dist/node/cli.js). */
export const cliBin = path.join(repoRoot, 'bin', 'wheelhouse.mjs');

/** The bundle the command loads; built by `node scripts/build.mjs --no-renderer`. */
export const cliBundle = path.join(repoRoot, 'dist', 'node', 'cli.js');
