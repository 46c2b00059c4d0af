import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { RpcError } from '../../../shared/protocol/index.js';
import { expectNoRunsLeft } from '../../../test-support/detached-runs.js';
import { JobTestKit, stitchOutput } from '../../../test-support/job-test-kit.js';
import { useTestSshd } from '../../../test-support/sshd-fixture.js';
import { sshdUnavailable, type TestSshd } from '../../../test-support/sshd.js';
import { waitUntil } from '../../../test-support/waiting.js';
import { PrivateFileSecretStore } from '../../secrets/private-file-secret-store.js';

/** environment/* and jobs on an SSH host, through the runtime, against a real sshd on 127.0.0.1. */
const unavailable = sshdUnavailable();
let sshd: TestSshd | undefined;
const kits: JobTestKit[] = [];
const homes: string[] = [];
/** Run folders the tests' jobs made on the "host" (this machine, under the remote home). */
const remoteRuns = path.join(os.homedir(), '.wheelhouse', 'runs');
const jobIds: string[] = [];

useTestSshd((started) => (sshd = started));
afterEach(async () => {
  for (const kit of kits.splice(0)) await kit.runtime.shutdown();
  if (sshd) await waitUntil(() => sshd!.sessionPids().length === 0, { what: 'every SSH session to close' });
  try {
    if (fs.existsSync(remoteRuns)) expectNoRunsLeft(remoteRuns);
  } finally {
    for (const jobId of jobIds.splice(0)) {
      for (const name of fs.existsSync(remoteRuns) ? fs.readdirSync(remoteRuns) : []) if (name.startsWith(`${jobId}-`)) fs.rmSync(path.join(remoteRuns, name), { recursive: true, force: true });
    }
    for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true });
  }
});

function kit(home: string): JobTestKit {
  const k = new JobTestKit(home, { secretStore: () => new PrivateFileSecretStore(path.join(home, 'api-keys.json')) });
  kits.push(k);
  return k;
}

function newHome(): string {
  const home = JobTestKit.home();
  homes.push(home);
  return home;
}

const rpcError = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(RpcError);
  return error as RpcError;
};

describe('environments over SSH', () => {
  test('a machine is added with its key kept out of the database, tested (uname -a, id, latency), and listed', async (ctx) => {
    if (!sshd) return ctx.skip(unavailable ?? 'no sshd');
    const home = newHome();
    const k = kit(home);
    const url = `ssh://${sshd.user}@127.0.0.1:${sshd.port}${home}`;
    expect(await k.call('environment/add', { environmentId: 'box', execServerUrl: url, privateKey: sshd.privateKey })).toEqual({});
    const { data } = await k.call('environment/list', {});
    expect(data.map((environment) => environment.environmentId)).toEqual(['local', 'box']);
    expect(data[1]).toMatchObject({ kind: 'ssh', host: '127.0.0.1', port: sshd.port, user: sshd.user, path: home, hasPrivateKey: true, status: 'pending' });
    // The key is in the secret store only.
    const keyLine = sshd.privateKey.split('\n')[1]!;
    expect(fs.readFileSync(path.join(home, 'environments.json'), 'utf8')).not.toContain(keyLine);
    for (const file of fs.readdirSync(home).filter((name) => name.endsWith('.sqlite') || name.endsWith('.db'))) {
      expect(fs.readFileSync(path.join(home, file)).includes(keyLine)).toBe(false);
    }

    // A host no list knows: the fingerprint is shown, and trusted once the person says so.
    const first = await k.call('environment/test', { environmentId: 'box' });
    expect(first).toMatchObject({ ok: false, unknownHostKey: { fingerprint: sshd.hostKeyFingerprint(), keyType: 'ssh-ed25519' } });
    expect(first.error).toContain(sshd.hostKeyFingerprint());
    const trusted = await k.call('environment/test', { environmentId: 'box', trustHostKey: sshd.hostKeyFingerprint() });
    expect(trusted).toMatchObject({ ok: true, error: null, unknownHostKey: null });
    expect(trusted.uname).toMatch(/^Linux /);
    expect(trusted.id).toContain(`(${sshd.user})`);
    expect(trusted.latencyMs).toBeGreaterThan(0);
    expect(fs.readFileSync(path.join(home, 'known_hosts'), 'utf8')).toContain(sshd.knownHostsLine());
    expect(await k.call('environment/status', { environmentId: 'box' })).toEqual({ status: 'ready' });
    expect(await k.call('environment/status', { environmentId: 'nowhere' })).toMatchObject({ status: 'unknown' });
    expect((await k.call('environment/info', { environmentId: 'box' })).cwd).toBe(`file://${home}`);

    // Threads: an unknown id is a typed error, and so is a folder there that is not a full path (thread-on-machine.test.ts runs threads there).
    expect((await rpcError(k.call('thread/start', { environments: [{ environmentId: 'nowhere', cwd: '/' }] }))).data).toMatchObject({ reason: 'environment.unknown' });
    expect((await rpcError(k.call('thread/start', { environments: [{ environmentId: 'box', cwd: 'here' }] }))).message).toContain('must be a full path there');
    expect((await rpcError(k.call('environment/add', { environmentId: 'bad', execServerUrl: 'ws://127.0.0.1:1234' }))).message).toContain('execServerUrl');
    expect((await rpcError(k.call('environment/remove', { environmentId: 'local' }))).message).toContain('cannot be removed');
    expect(await k.call('environment/remove', { environmentId: 'box' })).toEqual({});
    expect(fs.readFileSync(path.join(home, 'api-keys.json'), 'utf8')).not.toContain(keyLine);
  });

  test('a job runs on the host, survives a crash of Wheelhouse, is re-attached with every line once, and holds its machine while it runs', async (ctx) => {
    if (!sshd) return ctx.skip(unavailable ?? 'no sshd');
    const home = newHome();
    const first = kit(home);
    await first.call('environment/add', {
      environmentId: 'box',
      execServerUrl: `ssh://${sshd.user}@127.0.0.1:${sshd.port}`,
      privateKey: sshd.privateKey,
      hostKeyFingerprint: sshd.hostKeyFingerprint(),
    });
    const unknown = await rpcError(first.call('job/create', { kind: 'command', command: 'true', cwd: home, environmentId: 'nowhere' }));
    expect(unknown.data).toMatchObject({ reason: 'environment.unknown', environmentId: 'nowhere' });

    const marker = path.join(home, 'starts');
    const command = `echo started >> '${marker}'; for i in 1 2 3 4 5; do echo "line $i"; done; while [ ! -e go ]; do sleep 0.05; done; for i in 6 7 8; do echo "line $i"; done; exit 0`;
    const { job } = await first.call('job/create', { kind: 'command', name: 'remote build', command, cwd: home, environmentId: 'box', maxAttempts: 0 });
    jobIds.push(job.id);
    expect(job.environmentId).toBe('box');
    await first.until('line 5', () => first.output(job.id, 1).includes('line 5'));
    const shown = first.deltas(job.id, 1);

    const inUse = await rpcError(first.call('environment/remove', { environmentId: 'box' }));
    expect(inUse.message).toContain('remote build');
    expect(inUse.data).toMatchObject({ reason: 'environment.inUse', jobs: [{ jobId: job.id }] });
    // A new address or key would replace the connection the job is followed through: refused, naming the job, nothing changed.
    const url = `ssh://${sshd.user}@127.0.0.1:${sshd.port}`;
    const moved = await rpcError(first.call('environment/add', { environmentId: 'box', execServerUrl: `ssh://${sshd.user}@127.0.0.2:${sshd.port}`, name: 'moved' }));
    expect(moved.message).toContain('cannot change the address, user or key of');
    expect(moved.message).toContain('remote build (running)');
    expect(moved.data).toMatchObject({ reason: 'environment.inUse', jobs: [{ jobId: job.id }] });
    const rekeyed = await rpcError(first.call('environment/add', { environmentId: 'box', execServerUrl: url, privateKey: sshd.privateKey, hostKeyFingerprint: sshd.hostKeyFingerprint() }));
    expect(rekeyed.data).toMatchObject({ reason: 'environment.inUse', jobs: [{ jobId: job.id }] });
    expect((await first.call('environment/list', {})).data[1]).toMatchObject({ environmentId: 'box', host: '127.0.0.1', name: `${sshd.user}@127.0.0.1` });
    // A new name touches no running work: it is saved at once, on the same connection (the same sshd session goes on).
    const sessions = sshd.sessionPids();
    expect(await first.call('environment/add', { environmentId: 'box', execServerUrl: url, name: 'Build box', hostKeyFingerprint: sshd.hostKeyFingerprint() })).toEqual({});
    expect((await first.call('environment/list', {})).data[1]).toMatchObject({ environmentId: 'box', name: 'Build box', status: 'ready', hasPrivateKey: true });
    expect(JSON.parse(fs.readFileSync(path.join(home, 'environments.json'), 'utf8')).environments[0]).toMatchObject({ name: 'Build box' });
    expect(sshd.sessionPids()).toEqual(sessions);

    // A crash: nothing is stopped, the connection just goes.
    first.runtime.close();
    kits.splice(kits.indexOf(first), 1);

    const second = kit(home);
    expect((await second.call('job/read', { jobId: job.id })).job).toMatchObject({ status: 'running', environmentId: 'box' });
    fs.writeFileSync(path.join(home, 'go'), '');
    await second.untilJob(job.id, 'the job to complete', (updated) => updated.status === 'completed');
    const all = stitchOutput([...shown, ...second.deltas(job.id, 1)]).toString('utf8');
    expect([...all.matchAll(/line (\d)\r\n/g)].map((match) => Number(match[1]))).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(fs.readFileSync(marker, 'utf8')).toBe('started\n');
    expect((await second.call('job/runs', { jobId: job.id })).runs).toHaveLength(1);
    // The job page reads the copy of the remote log kept here.
    expect((await second.call('job/log', { jobId: job.id })).data).toBe(all);
    expect(await second.call('environment/remove', { environmentId: 'box' })).toEqual({});
  });
});
