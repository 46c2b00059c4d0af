import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { patchOf } from '../../../test-support/agent-patches.js';
import { useTestSshd } from '../../../test-support/sshd-fixture.js';
import { pinnedConnection, sshdUnavailable, type TestSshd } from '../../../test-support/sshd.js';
import { TempDirs } from '../../../test-support/temp-dir.js';
import { waitUntil } from '../../../test-support/waiting.js';
import { SftpFiles } from '../../exec/remote/sftp-files.js';
import type { SshConnection } from '../../exec/remote/ssh-connection.js';
import type { WorkspaceFiles } from '../../files/workspace-files.js';
import { applyPatch, PatchError } from '../patch/apply-patch.js';

/**
 * A patch on an SSH machine whose connection is killed while it is being
 * written (the sshd session SIGKILLed at a chosen step, Debian's real sshd
 * on 127.0.0.1): every file stays whole, old or new, and the error says
 * what happened and which files, if any, were changed.
 */
const temp = new TempDirs();
const unavailable = sshdUnavailable();
let sshd: TestSshd | undefined;
const connections: SshConnection[] = [];

useTestSshd((started) => (sshd = started));
afterEach(async () => {
  for (const connection of connections.splice(0)) connection.close();
  if (sshd) await waitUntil(() => sshd!.sessionPids().length === 0, { what: 'every SSH session to close' });
  temp.cleanup();
});

function connect(server: TestSshd): SshConnection {
  const connection = pinnedConnection(server);
  connections.push(connection);
  return connection;
}

/** The machine's files, with the sshd session killed just before the `nth` call of `step` (1-based). */
function killedAt(files: WorkspaceFiles, server: TestSshd, step: 'writeNew' | 'rename', nth: number): WorkspaceFiles {
  let calls = 0;
  const original = files[step].bind(files) as (...args: unknown[]) => Promise<void>;
  return Object.assign(Object.create(files) as WorkspaceFiles, {
    [step]: async (...args: unknown[]) => {
      calls += 1;
      if (calls === nth) for (const pid of server.sessionPids()) process.kill(pid, 'SIGKILL');
      return original(...args);
    },
  });
}

/** Three files of 200 KiB each, and a patch that changes the first line of each. */
function bigFiles(folder: string): { names: string[]; before: Map<string, string>; patch: string } {
  const names = ['a.txt', 'b.txt', 'c.txt'];
  const before = new Map<string, string>();
  for (const name of names) {
    const content = `${name} first\n${'x'.repeat(100)}\n`.repeat(2000);
    fs.writeFileSync(path.join(folder, name), content);
    before.set(name, content);
  }
  const patch = patchOf(...names.flatMap((name) => [`*** Update File: ${name}`, '@@', `-${name} first`, `+${name} FIRST`]));
  return { names, before, patch };
}

const leftovers = (folder: string) => fs.readdirSync(folder).filter((name) => name.endsWith('.patch-tmp'));

describe('a patch on an SSH machine whose connection drops', () => {
  test('killed while the new contents are written: no file changes, and the error says the connection dropped', async (ctx) => {
    if (!sshd) return ctx.skip(unavailable ?? 'no sshd');
    const folder = temp.make('wheelhouse-remote-drop-');
    const { names, before, patch } = bigFiles(folder);
    const connection = connect(sshd);
    const files = killedAt(new SftpFiles(connection, 'Build box'), sshd, 'writeNew', 2);

    const error = await applyPatch(files, folder, patch).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(PatchError);
    expect((error as PatchError).code).toBe('connection_lost');
    expect((error as PatchError).message).toMatch(/^the connection to Build box \(127\.0\.0\.1\) dropped while trying to .*; no file was changed$/);
    for (const name of names) expect(fs.readFileSync(path.join(folder, name), 'utf8')).toBe(before.get(name));
    // The staged copy is removed over a new connection.
    expect(leftovers(folder)).toEqual([]);

    // The machine is reachable again: the same patch applies whole.
    await applyPatch(new SftpFiles(connection, 'Build box'), folder, patch);
    for (const name of names) expect(fs.readFileSync(path.join(folder, name), 'utf8')).toBe(before.get(name)!.replace(`${name} first`, `${name} FIRST`));
  });

  test('killed while the files are put in place: each file is whole, old or new, and the error names the ones changed', async (ctx) => {
    if (!sshd) return ctx.skip(unavailable ?? 'no sshd');
    const folder = temp.make('wheelhouse-remote-drop-');
    const { names, before, patch } = bigFiles(folder);
    const files = killedAt(new SftpFiles(connect(sshd), 'Build box'), sshd, 'rename', 2);

    const error = await applyPatch(files, folder, patch).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect((error as PatchError).code).toBe('connection_lost');
    expect((error as PatchError).message).toContain(`every file is whole, and only these were changed: ${folder}/a.txt`);
    expect(fs.readFileSync(path.join(folder, 'a.txt'), 'utf8')).toBe(before.get('a.txt')!.replace('a.txt first', 'a.txt FIRST'));
    for (const name of names.slice(1)) expect(fs.readFileSync(path.join(folder, name), 'utf8')).toBe(before.get(name));
  });
});
