/**
 * Throughput of the process supervisor (pty → batching → log → a
 * flow-controlled consumer) against a raw node-pty drain of the same fixture
 * in the same run. Checks that every byte reached the consumer and the log,
 * in order, and how far the consumer ever lagged (unacknowledged bytes).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import * as pty from 'node-pty';
import { ProcessSupervisor } from '../electron/exec/index.js';
import { ms, quantile, summarize } from './stats.js';

export const LINES = 3_000_000;
export const FIXTURE = ['seq', '1', String(LINES)];

/** Size and sha256 of what `seq 1 3000000` writes through a pty (`\r\n` line ends). */
export function expectedDigest(): { bytes: number; sha256: string } {
  const hash = createHash('sha256');
  let bytes = 0;
  let block = '';
  for (let i = 1; i <= LINES; i += 1) {
    block += `${i}\r\n`;
    if (block.length > 1 << 16) {
      hash.update(block);
      bytes += block.length;
      block = '';
    }
  }
  hash.update(block);
  bytes += block.length;
  return { bytes, sha256: hash.digest('hex') };
}

export interface RunResult {
  readonly bytes: number;
  readonly sha256: string;
  readonly ms: number;
}

/** node-pty alone: spawn to exit, every chunk hashed (what it drops at exit shows as fewer bytes). */
export function rawDrain(cwd: string): Promise<RunResult> {
  return new Promise((resolve) => {
    const started = performance.now();
    const hash = createHash('sha256');
    let bytes = 0;
    const terminal = pty.spawn('/usr/bin/env', FIXTURE, { cwd, env: process.env as Record<string, string>, encoding: null, cols: 80, rows: 24 });
    terminal.onData((chunk) => {
      const data = chunk as unknown as Buffer;
      bytes += data.length;
      hash.update(data);
    });
    terminal.onExit(() => resolve({ bytes, sha256: hash.digest('hex'), ms: performance.now() - started }));
  });
}

async function supervisedDrain(supervisor: ProcessSupervisor, cwd: string) {
  const started = performance.now();
  const child = await supervisor.spawn({ command: FIXTURE, cwd });
  const hash = createHash('sha256');
  let bytes = 0;
  let events = 0;
  // A consumer that acknowledges after it has handled a batch, as a client does.
  const subscription = child.subscribe(
    (event) => {
      if (event.type !== 'output') return;
      events += 1;
      bytes += event.data.length;
      hash.update(event.data);
      setImmediate(() => subscription.ack(event.data.length));
    },
    { flowControl: true },
  );
  const exit = await child.exited;
  const ms = performance.now() - started;
  const logSha256 = createHash('sha256').update(fs.readFileSync(child.description.logPath)).digest('hex');
  return { bytes, sha256: hash.digest('hex'), ms, events, exitCode: exit.exitCode, logSha256, maxUnackedBytes: child.maxUnackedBytes };
}

/**
 * Keystroke echo in a terminal (a pty running `cat`, echoed by the line
 * discipline) while another supervised command floods: time from write to
 * the echo reaching the subscriber, batching included.
 */
async function keystrokeEchoUnderFlood(supervisor: ProcessSupervisor, cwd: string, keystrokes: number) {
  const terminal = await supervisor.spawn({ command: ['cat'], cwd });
  const flood = await supervisor.spawn({ command: FIXTURE, cwd });
  const floodSubscription = flood.subscribe(
    (event) => {
      if (event.type === 'output') setImmediate(() => floodSubscription.ack(event.data.length));
    },
    { flowControl: true },
  );
  let waiting: { key: string; sentAt: number; resolve: (ms: number) => void } | null = null;
  terminal.subscribe((event) => {
    if (event.type === 'output' && waiting && event.data.includes(waiting.key)) {
      const done = waiting;
      waiting = null;
      done.resolve(performance.now() - done.sentAt);
    }
  });
  const samples: number[] = [];
  for (let i = 0; i < keystrokes && flood.state !== 'exited'; i += 1) {
    const key = String.fromCharCode(97 + (i % 26));
    samples.push(
      await new Promise<number>((resolve) => {
        waiting = { key, sentAt: performance.now(), resolve };
        terminal.write(key);
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const floodStillRunning = flood.state !== 'exited';
  await Promise.all([terminal.terminate(), flood.terminate()]);
  const sorted = [...samples].sort((a, b) => a - b);
  return { ...summarize(samples), p95Ms: ms(quantile(sorted, 0.95)), floodStillRunning };
}

const mbPerSecond = (bytes: number, ms: number) => Math.round((bytes / 1e6 / (ms / 1000)) * 10) / 10;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function ptyThroughput(options: { dir: string; rounds?: number }) {
  const expected = expectedDigest();
  const supervisor = new ProcessSupervisor({ logDir: options.dir });
  await supervisor.loginEnvironment();
  const raw: RunResult[] = [];
  const supervised: Awaited<ReturnType<typeof supervisedDrain>>[] = [];
  let echo: Awaited<ReturnType<typeof keystrokeEchoUnderFlood>>;
  try {
    // Interleaved, so a change in machine load affects both sides alike.
    for (let round = 0; round < (options.rounds ?? 3); round += 1) {
      raw.push(await rawDrain(options.dir));
      supervised.push(await supervisedDrain(supervisor, options.dir));
    }
    echo = await keystrokeEchoUnderFlood(supervisor, options.dir, 60);
  } finally {
    await supervisor.dispose();
  }
  const rawRates = raw.map((run) => mbPerSecond(run.bytes, run.ms));
  const supervisedRates = supervised.map((run) => mbPerSecond(run.bytes, run.ms));
  return {
    fixture: FIXTURE.join(' '),
    expectedBytes: expected.bytes,
    rawNodePty: {
      mbPerSecond: rawRates,
      // Plain node-pty takes the hang-up at exit for end-of-file and drops what the kernel still held.
      bytesLost: raw.map((run) => expected.bytes - run.bytes),
    },
    supervisor: {
      mbPerSecond: supervisedRates,
      batchesPerRun: supervised.map((run) => run.events),
      lossless: supervised.every((run) => run.sha256 === expected.sha256 && run.bytes === expected.bytes),
      logLossless: supervised.every((run) => run.logSha256 === expected.sha256),
      maxUnackedBytes: Math.max(...supervised.map((run) => run.maxUnackedBytes)),
    },
    ratioOfMedians: Math.round((median(supervisedRates) / median(rawRates)) * 100) / 100,
    keystrokeEchoUnderFlood: echo,
  };
}
