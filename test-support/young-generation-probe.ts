/**
 * Child process for young-generation.test.ts: loads the host's V8 setting, then allocates
 * some 300 MB of short-lived objects and prints V8's young-generation capacity before and after.
 */
import '../electron/host/young-generation.js';
import v8 from 'node:v8';

const youngCapacity = () => v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')!.space_size;

const before = youngCapacity();
let kept: { index: number; text: string }[] = [];
for (let index = 0; index < 4_000_000; index++) {
  kept.push({ index, text: `item ${index}` });
  if (kept.length > 100_000) kept = [];
}
process.stdout.write(`${JSON.stringify({ before, after: youngCapacity(), kept: kept.length })}\n`);
