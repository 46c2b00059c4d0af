import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Client } from 'ssh2';
import { slurmUnavailable, startSlurmCluster, type TestSlurmCluster } from './slurm-cluster.js';
import { sshdUnavailable, startSshd, type TestSshd } from './sshd.js';
import { TempDirs } from './temp-dir.js';
import { waitUntil } from './waiting.js';

const temp = new TempDirs();
afterAll(() => temp.cleanup());

describe('the sshd fixture', () => {
  const unavailable = sshdUnavailable();
  let sshd: TestSshd | undefined;
  beforeAll(async () => {
    if (!unavailable) sshd = await startSshd(temp.make('wheelhouse-sshd-'));
  });
  afterAll(async () => sshd?.stop());

  test('accepts the user key and runs a command', async (ctx) => {
    if (!sshd) return ctx.skip(unavailable ?? 'no sshd');
    const server = sshd;
    const client = new Client();
    let seenKey = '';
    const output = await new Promise<string>((resolve, reject) => {
      client.once('error', reject);
      client.once('ready', () => {
        client.exec('echo hello from $(id -un)', (error, stream) => {
          if (error) return reject(error);
          let text = '';
          stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
          stream.once('close', () => resolve(text));
        });
      });
      client.connect({
        host: server.host,
        port: server.port,
        username: server.user,
        privateKey: server.privateKey,
        hostVerifier: (key: Buffer) => {
          seenKey = key.toString('base64');
          return true;
        },
      });
    });
    client.end();
    await waitUntil(() => server.sessionPids().length === 0, { what: 'the session to end' });
    expect(output.trim()).toBe(`hello from ${server.user}`);
    expect(server.knownHostsLine()).toContain(seenKey);
  });
});

describe('the Slurm fixture', () => {
  const unavailable = slurmUnavailable();
  let cluster: TestSlurmCluster | undefined;
  beforeAll(async () => {
    if (!unavailable) cluster = await startSlurmCluster(temp.make('wheelhouse-slurm-'));
  });
  afterAll(async () => cluster?.stop());

  test('runs a batch job to its end', async (ctx) => {
    if (!cluster) return ctx.skip(unavailable ?? 'no cluster');
    const slurm = cluster;
    const id = (await slurm.client('/usr/bin/sbatch', ['--parsable', '-o', `${slurm.dir}/out.txt`, '--wrap', 'echo batch says hi; exit 3'])).trim();
    const state = await waitUntil(
      async () => {
        const line = await slurm.client('/usr/bin/scontrol', ['show', 'job', '-o', id]);
        const status = /JobState=(\S+)/.exec(line)?.[1];
        return status === 'FAILED' || status === 'COMPLETED' ? line : null;
      },
      { what: 'the batch job to end', intervalMs: 100 },
    );
    expect(state).toMatch(/JobState=FAILED/);
    expect(state).toMatch(/ExitCode=3:0/);
  });
});
