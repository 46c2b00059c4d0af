import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { alive, collect, pidsAfter, referenceWork, seqText } from '../../test-support/exec.js';
import { waitUntil } from '../../test-support/waiting.js';
import { TempDirs } from '../../test-support/temp-dir.js';
import { treeMembers } from './process-tree.js';
import { DEFAULT_OUTPUT_LIMITS, ProcessSupervisor } from './supervisor.js';
import type { ProcessEvent } from './types.js';

const temp = new TempDirs();
const supervisors: ProcessSupervisor[] = [];

function supervisor(killGraceMs = 2000): ProcessSupervisor {
  const created = new ProcessSupervisor({ logDir: temp.make('wheelhouse-exec-logs-'), killGraceMs });
  supervisors.push(created);
  return created;
}

afterEach(async () => {
  await Promise.all(supervisors.splice(0).map((s) => s.dispose()));
  temp.cleanup();
});

/** Enough output to pass the high-water mark well before the command ends (~6.9 MB through a pty). */
const FLOOD_LINES = 1_000_000;
/** What a consumer can hold when the pause takes effect: the mark, one batch and one read. */
const HELD_AT_MOST = DEFAULT_OUTPUT_LIMITS.highWaterBytes + DEFAULT_OUTPUT_LIMITS.maxBatchBytes + 64 * 1024;
/**
 * Bytes the command in the exit-while-paused test writes before it waits: over the high-water mark,
 * by less than the kernel's pty buffer holds, so its writer is not left blocked by the pause.
 */
const PAST_THE_MARK = DEFAULT_OUTPUT_LIMITS.highWaterBytes + 40_000;

/** Two background sleeps (grandchildren) and a foreground wait; prints their pids. */
const GRANDCHILDREN = `sleep 300 & echo "pid:$!"; sleep 300 & echo "pid:$!"; echo "pid:$$"; wait`;
/** The same, with children that ignore SIGTERM, so only SIGKILL ends them. */
const STUBBORN = `trap '' TERM; sh -c 'trap "" TERM; sleep 300' & echo "pid:$!"; sleep 300 & echo "pid:$!"; echo "pid:$$"; wait`;

async function startTree(sup: ProcessSupervisor, command: string, extra: { tty?: boolean; timeoutMs?: number } = {}) {
  const child = await sup.spawn({ command: ['sh', '-c', command], cwd: temp.make(), ...extra });
  const seen = collect(child);
  await waitUntil(() => pidsAfter(seen.text(), 'pid:').length === 3, { what: 'the tree to print its pids' });
  const pids = pidsAfter(seen.text(), 'pid:');
  expect(alive(pids)).toEqual(pids);
  return { child, seen, pids };
}

describe('process supervisor control', () => {
  it('pauses a flooding command while a flow-controlled consumer does not acknowledge, then delivers every byte', async () => {
    const child = await supervisor().spawn({ command: ['seq', '1', String(FLOOD_LINES)], cwd: temp.make() });
    const received: Buffer[] = [];
    let receivedBytes = 0;
    let acking = false;
    const subscription = child.subscribe(
      (event: ProcessEvent) => {
        if (event.type !== 'output') return;
        received.push(event.data);
        receivedBytes += event.data.length;
        if (acking) subscription.ack(event.data.length);
      },
      { flowControl: true },
    );
    await waitUntil(() => child.outputPaused, { what: 'flow control to pause the output' });
    const heldAt = receivedBytes;
    // Paused, not lost: while a second command does the same amount of output to its end, nothing more
    // arrives from this one and it has not exited.
    const reference = await supervisor().spawn({ command: ['seq', '1', String(FLOOD_LINES)], cwd: temp.make() });
    expect((await reference.exited).exitCode).toBe(0);
    expect(receivedBytes).toBe(heldAt);
    expect(child.state).toBe('running');
    expect(heldAt).toBeGreaterThan(DEFAULT_OUTPUT_LIMITS.highWaterBytes);
    expect(child.maxUnackedBytes).toBeLessThanOrEqual(HELD_AT_MOST);
    acking = true;
    subscription.ack(receivedBytes);
    const exit = await child.exited;
    expect(exit.exitCode).toBe(0);
    expect(Buffer.concat(received).toString()).toBe(seqText(FLOOD_LINES, true));
    expect(child.maxUnackedBytes).toBeLessThanOrEqual(HELD_AT_MOST);
  });

  it('still delivers the last bytes of a command that exits while its output is paused', async () => {
    // Output past the high-water mark pauses it (unacknowledged); then, while paused, the command
    // answers its input and exits: its last bytes sit in the kernel's pty buffer, never read before.
    const script = `head -c ${PAST_THE_MARK} /dev/zero | tr '\\0' a; read answer; echo "END-$answer"`;
    const child = await supervisor().spawn({ command: ['sh', '-c', script], cwd: temp.make() });
    const received: Buffer[] = [];
    child.subscribe((event) => event.type === 'output' && received.push(event.data), { flowControl: true });
    await waitUntil(() => child.outputPaused, { what: 'flow control to pause the output' });
    child.write('go\r');
    const exit = await child.exited;
    expect(exit.exitCode).toBe(0);
    expect(Buffer.concat(received).toString()).toBe(`${'a'.repeat(PAST_THE_MARK)}go\r\nEND-go\r\n`);
  });

  it('applies flow control to pipes too', async () => {
    const child = await supervisor().spawn({ command: ['seq', '1', String(FLOOD_LINES)], cwd: temp.make(), tty: false });
    const received: Buffer[] = [];
    const subscription = child.subscribe((event) => event.type === 'output' && received.push(event.data), { flowControl: true });
    await waitUntil(() => child.outputPaused, { what: 'flow control to pause the pipes' });
    expect(child.state).toBe('running');
    subscription.dispose();
    await child.exited;
    expect(Buffer.concat(received).toString()).toBe(seqText(FLOOD_LINES, false).slice(0, Buffer.concat(received).length));
    expect(child.readLog(0, 10_000_000).toString()).toBe(seqText(FLOOD_LINES, false));
  });

  for (const tty of [true, false]) {
    it(`terminate kills the whole tree, grandchildren included (${tty ? 'pty' : 'pipes'})`, async () => {
      const { child, pids } = await startTree(supervisor(), GRANDCHILDREN, { tty });
      const exit = await child.terminate();
      expect(exit.reason).toBe('terminated');
      expect(exit.signal ?? `exit ${exit.exitCode}`).toBeTruthy();
      expect(alive(pids)).toEqual([]);
      expect(treeMembers(child.pid)).toEqual([]);
    });
  }

  it('escalates to SIGKILL for a tree that ignores SIGTERM', async () => {
    const { child, pids } = await startTree(supervisor(300), STUBBORN);
    const exit = await child.terminate();
    expect(exit.reason).toBe('terminated');
    expect(alive(pids)).toEqual([]);
  });

  it('a timeout ends the whole tree and says so', async () => {
    const { child, pids } = await startTree(supervisor(), GRANDCHILDREN, { timeoutMs: 5000 });
    const exit = await child.exited;
    expect(exit.reason).toBe('timed-out');
    await waitUntil(() => alive(pids).length === 0, { what: 'the timed-out tree to be gone' });
  });

  it('dispose (app quit) ends every tree and refuses new commands', async () => {
    const sup = supervisor();
    const first = await startTree(sup, GRANDCHILDREN);
    const second = await startTree(sup, STUBBORN, { tty: false });
    await sup.dispose();
    expect((await first.child.exited).reason).toBe('disposed');
    expect((await second.child.exited).reason).toBe('disposed');
    expect(alive([...first.pids, ...second.pids])).toEqual([]);
    await expect(sup.spawn({ command: 'true', cwd: temp.make() })).rejects.toMatchObject({ code: 'disposed' });
  });

  it('disposeNow kills every tree synchronously for a host that is exiting', async () => {
    const sup = supervisor();
    const { child, pids } = await startTree(sup, STUBBORN);
    sup.disposeNow();
    await waitUntil(() => alive(pids).length === 0, { what: 'SIGKILL to reach the tree' });
    expect((await child.exited).reason).toBe('disposed');
  });

  it('what a command leaves running in the background goes when it exits', async () => {
    const child = await supervisor(500).spawn({ command: 'sleep 300 & echo "pid:$!"', cwd: temp.make(), tty: false });
    const seen = collect(child);
    expect((await child.exited).exitCode).toBe(0);
    const [orphan] = pidsAfter(seen.text(), 'pid:');
    await waitUntil(() => alive([orphan!]).length === 0, { what: 'the background sleep to be killed' });
  });

  it('pause stops the whole tree and its output; resume restarts both; paused time is not running time', async () => {
    const script = `sh -c 'i=0; while :; do i=$((i+1)); echo "tick:$i"; sleep 0.05; done' & echo "pid:$!"; wait`;
    const child = await supervisor().spawn({ command: ['sh', '-c', script], cwd: temp.make(), timeoutMs: 60_000 });
    const seen = collect(child);
    await waitUntil(() => pidsAfter(seen.text(), 'tick:').length >= 3, { what: 'ticks' });
    child.pause();
    expect(child.state).toBe('paused');
    const members = treeMembers(child.pid).map((member) => member.pid);
    expect(members.length).toBeGreaterThanOrEqual(2);
    // Every member is stopped (state T), not merely quiet.
    await waitUntil(() => members.every((pid) => processState(pid) === 'T'), { what: 'every member to be stopped' });
    const ticksWhenPaused = pidsAfter(seen.text(), 'tick:').length;
    // While another process ticks ten times (at least 500 ms), this one adds at most the line it was writing when stopped.
    await referenceWork(supervisor(), temp.make(), 10);
    expect(pidsAfter(seen.text(), 'tick:').length).toBeLessThanOrEqual(ticksWhenPaused + 1);
    const stalled = pidsAfter(seen.text(), 'tick:').length;
    child.resume();
    expect(child.state).toBe('running');
    await waitUntil(() => pidsAfter(seen.text(), 'tick:').length >= stalled + 3, { what: 'ticks after resume' });
    const exit = await child.terminate();
    expect(exit.durationMs - exit.activeMs).toBeGreaterThanOrEqual(500);
    expect(seen.events.filter((event) => event.type === 'state').map((event) => event.type === 'state' && event.state)).toEqual(['paused', 'running']);
  });

  it('terminate reaches a paused tree (SIGTERM is delivered after SIGCONT)', async () => {
    const { child, pids } = await startTree(supervisor(), GRANDCHILDREN);
    child.pause();
    const exit = await child.terminate();
    expect(exit.reason).toBe('terminated');
    expect(alive(pids)).toEqual([]);
  });
});

function processState(pid: number): string | undefined {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    return text.slice(text.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}
