import { describe, it } from 'vitest';
import { spawnTracked } from './child-process.js';
import { readsFd } from './event-loop-fds.js';
import { onEvents, waitUntil } from './waiting.js';

describe.skipIf(process.platform !== 'linux')('readsFd', () => {
  it('tells a process that reads its stdin from one that stopped reading it', async () => {
    // Reads stdin until the first line arrives, then stops reading for good.
    const script = "process.stdin.once('data', () => { process.stdin.pause(); process.stdout.write('paused\\n'); }); setInterval(() => {}, 1000);";
    const child = spawnTracked(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'pipe'] });
    // What is still unsent when the test kills the child fails to arrive; that is expected here.
    child.child.stdin!.on('error', () => undefined);
    try {
      const pid = child.child.pid!;
      await waitUntil(() => readsFd(pid, 0), { what: 'the child to read its stdin' });
      let printed = '';
      child.child.stdout!.on('data', (chunk: Buffer) => (printed += chunk.toString()));
      child.child.stdin!.write('first line\n');
      await waitUntil(() => printed.includes('paused'), { what: 'the child to pause its stdin', wakeOn: onEvents(child.child.stdout!, 'data') });
      // A paused stream reads on until its buffer is full, then lets go of the fd.
      child.child.stdin!.write(Buffer.alloc(1024 * 1024, 'x'));
      await waitUntil(() => !readsFd(pid, 0), { what: 'the child to stop watching its stdin' });
    } finally {
      await child.stop('SIGKILL');
    }
  });
});
