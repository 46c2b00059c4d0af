import { ensureCliBuilt } from './build.js';

/** Vitest global setup: carrier tests run the built CLI as a real child process. */
export default function setup(): void {
  ensureCliBuilt();
}
