import { spawn } from 'node:child_process';
import net from 'node:net';
import { it } from 'vitest';
import { waitUntil } from './waiting.js';

/**
 * Tests that leave things behind, run by leak-check.test.ts in a vitest of
 * their own (the suite's config does not pick this file up): each must fail
 * under test-support/leak-check-setup.ts, naming what it left.
 */
it('leaves a server listening', () => {
  net.createServer().listen(0, '127.0.0.1');
});

it('leaves a child process running', () => {
  spawn('sleep', ['3600'], { stdio: 'ignore' });
});

it('leaves a timer armed', () => {
  setTimeout(() => undefined, 3_600_000);
});

it('ends while a wait is pending', async () => {
  await waitUntil(() => false, { what: 'a condition that never holds' });
}, 500);

it('leaves a process whose parent exited (the file fails)', async () => {
  const parent = spawn('sh', ['-c', 'sleep 3601 &'], { stdio: 'ignore' });
  await new Promise((resolve) => parent.once('exit', resolve));
});

it('closes what it opens', async () => {
  const server = net.createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  await new Promise((resolve) => server.close(resolve));
  clearTimeout(setTimeout(() => undefined, 1000));
});
