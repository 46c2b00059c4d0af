import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { collect, seqText } from '../../test-support/exec.js';
import { TempDirs } from '../../test-support/temp-dir.js';
import { waitUntil } from '../../test-support/waiting.js';
import { ExecError } from './exec-error.js';
import { ProcessSupervisor } from './supervisor.js';

const temp = new TempDirs();
const supervisors: ProcessSupervisor[] = [];

function supervisor(options: Partial<ConstructorParameters<typeof ProcessSupervisor>[0]> = {}): ProcessSupervisor {
  const created = new ProcessSupervisor({ logDir: temp.make('wheelhouse-exec-logs-'), ...options });
  supervisors.push(created);
  return created;
}

afterEach(async () => {
  await Promise.all(supervisors.splice(0).map((s) => s.dispose()));
  temp.cleanup();
});

describe('process supervisor output', () => {
  it('streams seq 1 300000 through a pty losslessly, in order, in batches, and logs the same bytes', async () => {
    const child = await supervisor().spawn({ command: ['seq', '1', '300000'], cwd: temp.make() });
    const seen = collect(child);
    const exit = await child.exited;
    const expected = seqText(300000, true);
    expect(exit).toMatchObject({ exitCode: 0, signal: null, reason: 'exited', droppedBytes: 0 });
    expect(seen.text()).toBe(expected);
    expect(exit.outputBytes).toBe(Buffer.byteLength(expected));
    // Offsets are contiguous: no gap, no overlap, no reordering.
    let offset = 0;
    const outputs = seen.events.filter((event) => event.type === 'output');
    for (const event of outputs) {
      expect(event.offset).toBe(offset);
      offset += event.data.length;
    }
    // Batched: 2.3 MB arrive in batches of up to ~64 KB, not one event per 4 KB pty read.
    expect(outputs.length).toBeLessThan(Buffer.byteLength(expected) / 4096 / 2);
    expect(seen.events.at(-1)).toEqual({ type: 'exit', exit });
    const logPath = path.join(path.dirname(child.description.logPath), `${child.id}.log`);
    expect(fs.readFileSync(logPath, 'utf8')).toBe(expected);
    expect(fs.statSync(logPath).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(logPath)).mode & 0o777).toBe(0o700);
    expect(child.readLog(0, 8).toString()).toBe('1\r\n2\r\n3\r');
  });

  it('streams seq 1 300000 through pipes losslessly and keeps stdout and stderr apart', async () => {
    const sup = supervisor();
    const seqChild = await sup.spawn({ command: ['seq', '1', '300000'], cwd: temp.make(), tty: false });
    const seqSeen = collect(seqChild);
    await seqChild.exited;
    expect(seqSeen.text()).toBe(seqText(300000, false));

    const both = await sup.spawn({ command: 'echo to-out; echo to-err >&2', cwd: temp.make(), tty: false });
    const seen = collect(both);
    expect((await both.exited).exitCode).toBe(0);
    const byStream = (stream: string) =>
      seen.events.flatMap((event) => (event.type === 'output' && event.stream === stream ? [event.data.toString()] : [])).join('');
    expect(byStream('stdout')).toBe('to-out\n');
    expect(byStream('stderr')).toBe('to-err\n');
  });

  it('runs in the given folder with the given environment and terminal size, and follows a resize', async () => {
    const cwd = temp.make();
    const child = await supervisor().spawn({
      command: 'pwd; echo "foo=$WH_FOO home=${HOME:+set}"; stty size; read line; stty size',
      cwd,
      env: { WH_FOO: 'bar baz' },
      cols: 100,
      rows: 30,
    });
    const seen = collect(child);
    await waitForText(seen, '30 100');
    child.resize(120, 40);
    child.write('go\r');
    const exit = await child.exited;
    expect(exit.exitCode).toBe(0);
    const text = seen.text();
    expect(text).toContain(`${fs.realpathSync(cwd)}\r\n`);
    expect(text).toContain('foo=bar baz home=set');
    expect(text).toMatch(/30 100\r\n[\s\S]*40 120\r\n/);
    expect(child.pid).toBeGreaterThan(0);
    expect(exit.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('takes input on stdin and reports exit codes and signals', async () => {
    const sup = supervisor();
    const echo = await sup.spawn({ command: ['head', '-n', '1'], cwd: temp.make(), tty: false });
    const seen = collect(echo);
    echo.write('hello there\n');
    expect((await echo.exited).exitCode).toBe(0);
    expect(seen.text()).toBe('hello there\n');

    const cat = await sup.spawn({ command: ['cat'], cwd: temp.make(), tty: false });
    const catSeen = collect(cat);
    expect(() => cat.resize(100, 30)).toThrow(/runs without a terminal/);
    cat.write('no newline at the end');
    cat.endInput();
    expect((await cat.exited).exitCode).toBe(0);
    expect(catSeen.text()).toBe('no newline at the end');

    const failing = await sup.spawn({ command: 'exit 7', cwd: temp.make() });
    expect(await failing.exited).toMatchObject({ exitCode: 7, signal: null, reason: 'exited' });

    const killed = await sup.spawn({ command: ['sh', '-c', 'kill -TERM $$'], cwd: temp.make(), tty: false });
    expect(await killed.exited).toMatchObject({ exitCode: null, signal: 'SIGTERM' });
    expect(() => killed.write('late')).toThrow(ExecError);
  });

  it('refuses bad specs with typed errors and starts nothing', async () => {
    const sup = supervisor();
    const cwd = temp.make();
    const codeOf = async (promise: Promise<unknown>) => promise.then(() => 'started', (error: ExecError) => error.code);
    expect(await codeOf(sup.spawn({ command: 'true', cwd: path.join(cwd, 'missing') }))).toBe('bad-cwd');
    expect(await codeOf(sup.spawn({ command: 'true', cwd: 'relative/dir' }))).toBe('bad-cwd');
    expect(await codeOf(sup.spawn({ command: ['definitely-not-a-command-wh'], cwd }))).toBe('not-found');
    expect(await codeOf(sup.spawn({ command: [], cwd }))).toBe('invalid-spec');
    expect(await codeOf(sup.spawn({ command: 'true', cwd, cols: 0 }))).toBe('invalid-spec');
    expect(await codeOf(sup.spawn({ command: 'true', cwd, env: { 'A=B': 'x' } }))).toBe('invalid-spec');
    expect(await codeOf(sup.spawn({ command: 'true', cwd, timeoutMs: -1 }))).toBe('invalid-spec');
    expect(await codeOf(sup.spawn({ command: 'true', cwd, logCapBytes: -5 }))).toBe('invalid-spec');
    expect(sup.list()).toEqual([]);
    // A string command runs through the shell, so an unknown command there is the shell's 127.
    const missing = await sup.spawn({ command: 'definitely-not-a-command-wh', cwd });
    expect((await missing.exited).exitCode).toBe(127);
  });

  it('stops streaming and logging at the cap with a visible marker, and says how much was dropped', async () => {
    const child = await supervisor({ output: { capBytes: 10_000 } }).spawn({ command: ['seq', '1', '100000'], cwd: temp.make(), tty: false });
    const seen = collect(child);
    const exit = await child.exited;
    const full = seqText(100000, false);
    expect(seen.bytes().length).toBe(10_000);
    expect(seen.text()).toBe(full.slice(0, 10_000));
    expect(seen.events.some((event) => event.type === 'output-capped' && event.capBytes === 10_000)).toBe(true);
    expect(exit.outputBytes).toBe(full.length);
    expect(exit.droppedBytes).toBe(full.length - 10_000);
    const log = fs.readFileSync(child.description.logPath, 'utf8');
    expect(log.startsWith(full.slice(0, 10_000))).toBe(true);
    expect(log.slice(10_000)).toContain('output truncated here');
  });

  it('per spawn: an uncapped stream (a terminal) can go on past a small log cap', async () => {
    const child = await supervisor().spawn({
      command: ['seq', '1', '100000'],
      cwd: temp.make(),
      tty: false,
      outputCapBytes: Number.POSITIVE_INFINITY,
      logCapBytes: 5000,
    });
    const seen = collect(child);
    const exit = await child.exited;
    const full = seqText(100000, false);
    expect(seen.text()).toBe(full);
    expect(exit.droppedBytes).toBe(0);
    const log = fs.readFileSync(child.description.logPath, 'utf8');
    expect(log.slice(0, 5000)).toBe(full.slice(0, 5000));
    expect(log.slice(5000)).toMatch(/^\n\[wheelhouse: log truncated here — its 5000-byte cap was reached; later output is not kept\]\n$/);
  });

  it('gives the model a bounded head + tail view with the omitted byte count', async () => {
    const child = await supervisor().spawn({ command: ['seq', '1', '300000'], cwd: temp.make(), tty: false });
    await child.exited;
    const view = child.modelView();
    const full = seqText(300000, false);
    expect(view.startsWith('1\n2\n3\n')).toBe(true);
    expect(view.endsWith('299999\n300000\n')).toBe(true);
    expect(view).toContain(`\n…${full.length - 16 * 1024} bytes omitted…\n`);
    expect(Buffer.byteLength(view)).toBeLessThan(17 * 1024);
  });

  it('reports OSC 9;4 progress printed by a real command, after the output around it', async () => {
    const script = String.raw`printf 'start\n\033]9;4;1;42\007'; printf '\033]9;4;3\033\\'; printf '\033]9;4;2;7\007\033]9;4;0\007done\n'`;
    const child = await supervisor().spawn({ command: script, cwd: temp.make() });
    const seen = collect(child);
    await child.exited;
    const progress = seen.events.flatMap((event) => (event.type === 'progress' ? [event.progress] : []));
    expect(progress).toEqual([
      { state: 'normal', percent: 42 },
      { state: 'indeterminate', percent: null },
      { state: 'error', percent: 7 },
      { state: 'hidden', percent: null },
    ]);
    const firstProgress = seen.events.findIndex((event) => event.type === 'progress');
    expect(seen.events.slice(0, firstProgress).some((event) => event.type === 'output' && event.data.toString().includes('start'))).toBe(true);
  });
});

function waitForText(seen: { text(): string }, needle: string): Promise<true> {
  return waitUntil(() => seen.text().includes(needle), { what: `output containing ${JSON.stringify(needle)}` });
}
