/**
 * Child process for the crash-safety test: writes threads with their items in
 * one transaction each, forever, printing `<threadId> <itemCount>` after each
 * commit. The test SIGKILLs it mid-write and checks what the file holds.
 * Usage: node --import tsx test-support/store-writer.ts <db-file> <first-index>
 */
import { StateStore } from '../electron/store/state-store.js';
import { threadRecord, userMessage } from './records.js';

const [file, firstArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: store-writer <db-file> <first-index>\n');
  process.exit(2);
}

const store = StateStore.open(file);
const filler = 'x'.repeat(2048);

for (let index = Number(firstArg ?? 0); ; index++) {
  const threadId = `thread-${index}`;
  const itemCount = 10 + (index % 17);
  const now = Date.now();
  store.transaction(() => {
    store.threads.upsert(
      threadRecord(threadId, { createdAtMs: now, preview: `crash test ${threadId}`, name: `items:${itemCount}` }),
    );
    for (let n = 0; n < itemCount; n++) {
      store.items.append(threadId, userMessage(`${threadId}-item-${n}`, `${n} ${filler}`, now));
    }
    store.checkpoints.save({
      threadId,
      checkpointId: 'latest',
      reason: 'writer',
      state: { itemCount },
      createdAtMs: now,
    });
  });
  process.stdout.write(`${threadId} ${itemCount}\n`);
}
