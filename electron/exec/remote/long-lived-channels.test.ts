import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { TempDirs } from '../../../test-support/temp-dir.js';
import { waitUntil } from '../../../test-support/waiting.js';
import { CommandShell } from './command-shell.js';
import { RemoteLogStream } from './remote-log-stream.js';
import { LocalShell } from './remote-shell.js';

/** The far side's helpers run by this machine's /bin/sh (what a Slurm cluster whose node this is uses), with the real Perl. */
const temp = new TempDirs();
const streams: RemoteLogStream[] = [];
afterEach(() => {
  for (const stream of streams.splice(0)) stream.close();
  temp.cleanup();
});

function collector() {
  const chunks: { offset: number; text: string }[] = [];
  let ended = false;
  let lost = false;
  return {
    chunks,
    text: () => chunks.map((chunk) => chunk.text).join(''),
    ended: () => ended,
    lost: () => lost,
    watcher: {
      data: (offset: number, data: Buffer) => chunks.push({ offset, text: data.toString('utf8') }),
      ended: () => (ended = true),
      lost: () => (lost = true),
    },
  };
}

describe('the log stream (one channel pushing every followed log)', () => {
  test('pushes what two logs gain as it is written, at exact offsets, and says when a log’s end marker appears', async () => {
    const dir = temp.make('wheelhouse-stream-');
    const first = path.join(dir, 'a.log');
    const second = path.join(dir, 'b.log');
    fs.writeFileSync(first, 'already there\n');
    fs.writeFileSync(second, '');
    const stream = new RemoteLogStream(new LocalShell());
    streams.push(stream);
    const a = collector();
    const b = collector();
    const followA = stream.follow(first, path.join(dir, 'a.exit'), 8, a.watcher);
    expect(followA).not.toBeNull();
    stream.follow(second, null, 0, b.watcher);
    await waitUntil(() => a.text() === 'there\n', { what: 'the first log from offset 8' });
    fs.appendFileSync(second, 'b1\n');
    await waitUntil(() => b.text() === 'b1\n', { what: 'the second log’s line' });
    fs.appendFileSync(first, 'a2\n');
    fs.appendFileSync(first, 'a3\n');
    fs.writeFileSync(path.join(dir, 'a.exit'), 'exit 0\n');
    await waitUntil(() => a.ended(), { what: 'the end marker' });
    expect(a.text()).toBe('there\na2\na3\n');
    let next = 8;
    for (const chunk of a.chunks) {
      expect(chunk.offset).toBe(next);
      next += Buffer.byteLength(chunk.text);
    }
    expect(b.ended()).toBe(false);
    expect(stream.unavailable).toBeNull();
  });

  test('streams behind a login shell that prints before the command runs', async () => {
    const dir = temp.make('wheelhouse-stream-');
    const log = path.join(dir, 'a.log');
    fs.writeFileSync(log, 'one\n');
    const local = new LocalShell();
    const chatty = { exec: local.exec.bind(local), stream: (command: string) => local.stream(`echo 'Welcome!'; printf 'no newline'; ${command}`) };
    const stream = new RemoteLogStream(chatty);
    streams.push(stream);
    const watched = collector();
    stream.follow(log, null, 0, watched.watcher);
    await waitUntil(() => watched.text() === 'one\n', { what: 'the log behind the greeting' });
    expect(watched.chunks[0]?.offset).toBe(0);
  });

  test('without Perl on the far side, says why once and leaves following to looks', async () => {
    const dir = temp.make('wheelhouse-stream-');
    const warnings: string[] = [];
    const stream = new RemoteLogStream(new LocalShell({ PATH: path.join(dir, 'no-tools-here') }), (message) => warnings.push(message));
    streams.push(stream);
    const watched = collector();
    expect(stream.follow(path.join(dir, 'a.log'), null, 0, watched.watcher)).not.toBeNull();
    await waitUntil(() => watched.lost(), { what: 'the follower told to look instead' });
    expect(stream.unavailable).toMatch(/perl did not start/);
    expect(warnings).toEqual([stream.unavailable]);
    expect(stream.follow(path.join(dir, 'a.log'), null, 0, collector().watcher)).toBeNull();
  });
});

describe('the command shell (short commands without a new session each)', () => {
  test('runs scripts one after another with exact output, stderr and status, and never lets a command read the protocol', async () => {
    const shell = await CommandShell.open((command) => new LocalShell().stream(command));
    expect(shell).not.toBeNull();
    try {
      const binary = await shell!.run(`printf 'a\\000b\\377'; echo oops >&2; exit 3`);
      expect([...binary.stdout]).toEqual([0x61, 0, 0x62, 0xff]);
      expect(binary).toMatchObject({ stderr: 'oops\n', code: 3 });
      // stdin is /dev/null: a command that reads it ends instead of eating what comes next.
      const reader = await shell!.run('cat; echo "read $?"\nx=1\necho "$x"');
      expect(reader.stdout.toString()).toBe('read 0\n1\n');
      const same = await shell!.run('echo $PPID');
      expect(same.code).toBe(0);
      const again = await shell!.run('echo $PPID');
      expect(again.stdout.toString()).toBe(same.stdout.toString());
    } finally {
      shell!.close();
    }
  });

  test('finds its greeting after whatever the login shell printed first', async () => {
    const local = new LocalShell();
    const shell = await CommandShell.open((command) => local.stream(`echo 'Last login: today'; printf 'no newline'; ${command}`));
    expect(shell).not.toBeNull();
    try {
      expect((await shell!.run('echo hi')).stdout.toString()).toBe('hi\n');
    } finally {
      shell!.close();
    }
  });
});
