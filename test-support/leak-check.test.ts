import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LeakWatch, OWNER_VARIABLE, processesOwnedBy } from './leak-check.js';
import { repoRoot } from './paths.js';
import { onEvents, waitUntil } from './waiting.js';

/** The checker itself: it must name what a test leaves, and stay quiet about what it closed. */
describe('LeakWatch', () => {
  it('names a server, a socket, a child process and a timer made after the snapshot, and nothing once they are closed', async () => {
    const watch = new LeakWatch();
    const server = net.createServer((socket) => socket.on('error', () => undefined)).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const port = (server.address() as net.AddressInfo).port;
    const client = net.connect(port, '127.0.0.1');
    await new Promise((resolve) => client.once('connect', resolve));
    const child = spawn('sleep', ['3600'], { stdio: 'ignore' });
    const timer = setTimeout(() => undefined, 3_600_000);
    const interval = setInterval(() => undefined, 3_600_000);

    const found = watch.leaks().map((leak) => `${leak.kind}: ${leak.description}`);
    expect(found).toEqual(
      expect.arrayContaining([
        `handle: a server listening on 127.0.0.1:${port}`,
        expect.stringMatching(new RegExp(`^handle: a socket from 127\\.0\\.0\\.1:\\d+ to 127\\.0\\.0\\.1:${port}$`)),
        `process: process ${child.pid}: sleep 3600`,
        expect.stringMatching(/^timer: a timeout of 3600000 ms at .*leak-check\.test\.ts:\d+:\d+/),
        expect.stringMatching(/^timer: an interval of 3600000 ms at .*leak-check\.test\.ts:\d+:\d+/),
      ]),
    );

    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    client.destroy();
    await new Promise((resolve) => server.close(resolve));
    clearTimeout(timer);
    clearInterval(interval);
    await waitUntil(() => watch.leaks().length === 0, { what: 'every closed thing to be gone' });
  });

  it('ignores timers that fired, were cleared or were unref’d, and what existed before the snapshot', async () => {
    const before = setTimeout(() => undefined, 3_600_000);
    const watch = new LeakWatch();
    await new Promise((resolve) => setTimeout(resolve, 1));
    clearTimeout(setTimeout(() => undefined, 1000));
    const unrefd = setTimeout(() => undefined, 3_600_000).unref();
    expect(watch.leaks()).toEqual([]);
    clearTimeout(before);
    clearTimeout(unrefd);
  });

  it('finds a process whose parent exited by the owner in its environment', async () => {
    const owner = `leak-check-${process.pid}`;
    const parent = spawn('sh', ['-c', 'sleep 3602 & echo $!'], { stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, [OWNER_VARIABLE]: owner } });
    let printed = '';
    parent.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    await new Promise((resolve) => parent.once('exit', resolve));
    const orphan = Number(printed.trim());
    try {
      expect(processesOwnedBy(owner).map((info) => info.pid)).toEqual([orphan]);
    } finally {
      process.kill(orphan, 'SIGKILL');
    }
    await waitUntil(() => processesOwnedBy(owner).length === 0, { what: 'the orphan to be gone' });
  });
});

describe('waitUntil', () => {
  it('resolves with the first value that holds, checking again on each wake', async () => {
    const emitter = new (await import('node:events')).EventEmitter();
    let value = 0;
    const waiting = waitUntil(() => value >= 3 && value, { what: 'value 3', wakeOn: onEvents(emitter, 'change') });
    for (let i = 0; i < 3; i += 1) {
      value += 1;
      emitter.emit('change');
    }
    expect(await waiting).toBe(3);
    expect(emitter.listenerCount('change')).toBe(0);
  });

  it('fails naming what it waited for when a limit of its own passes, or the check throws', async () => {
    await expect(waitUntil(() => false, { what: 'Godot', timeoutMs: 30 })).rejects.toThrow('waited 30 ms for Godot');
    await expect(
      waitUntil(
        () => {
          throw new Error('broken check');
        },
        { what: 'anything' },
      ),
    ).rejects.toThrow('broken check');
  });
});

describe('the leak check around every test', () => {
  it('fails each test that leaves a server, a process, a timer or a pending wait, and the file that leaves an orphan', () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'wheelhouse-leak-check-'));
    try {
      const config = path.join(out, 'vitest.config.mjs');
      const results = path.join(out, 'results.json');
      // A config of plain values: it imports nothing, so it loads from outside the repository.
      fs.writeFileSync(
        config,
        `export default ${JSON.stringify({
          test: {
            include: ['test-support/leak-check-fixture.ts'],
            setupFiles: ['test-support/leak-check-setup.ts'],
            pool: 'forks',
            testTimeout: 30_000,
          },
        })};\n`,
      );
      const run = spawnSync(
        process.execPath,
        [path.join(repoRoot, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--config', config, '--root', repoRoot, '--reporter=json', `--outputFile=${results}`],
        { cwd: repoRoot, encoding: 'utf8', env: { ...process.env, VITEST: undefined, NODE_OPTIONS: undefined } as NodeJS.ProcessEnv },
      );
      expect(run.status, run.stderr).toBe(1);
      const report = JSON.parse(fs.readFileSync(results, 'utf8')) as {
        testResults: Array<{ message: string; assertionResults: Array<{ title: string; status: string; failureMessages: string[] }> }>;
      };
      const [file] = report.testResults;
      const outcome = Object.fromEntries(file!.assertionResults.map((test) => [test.title, { status: test.status, why: test.failureMessages.join('\n') }]));
      expect(outcome['leaves a server listening']).toMatchObject({ status: 'failed', why: expect.stringContaining('a server listening on 127.0.0.1:') });
      expect(outcome['leaves a child process running']).toMatchObject({ status: 'failed', why: expect.stringMatching(/process \d+: sleep 3600/) });
      expect(outcome['leaves a timer armed']).toMatchObject({ status: 'failed', why: expect.stringMatching(/a timeout of 3600000 ms at .*leak-check-fixture\.ts/) });
      expect(outcome['ends while a wait is pending']).toMatchObject({
        status: 'failed',
        why: expect.stringContaining('The test ended while still waiting for: a condition that never holds.'),
      });
      expect(outcome['closes what it opens']).toMatchObject({ status: 'passed' });
      expect(file!.message).toMatch(/This file left behind .*\n.*process \d+: sleep 3601/);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  }, 120_000);
});
