import fs from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrivateFileSecretStore } from '../electron/secrets/private-file-secret-store.js';
import type { EnvironmentAddParams } from '../shared/protocol/index.js';
import { slurmUnavailable, startSlurmCluster, type TestSlurmCluster } from '../test-support/slurm-cluster.js';
import { sshdUnavailable, startSshd, type TestSshd } from '../test-support/sshd.js';
import { axeProblems } from './axe.js';
import { snap } from './screenshots.js';
import { openServedPage, useCleanups } from './served-page.js';

/** Run folders jobs on the SSH and Slurm machines make on the "host" (this machine, under the remote user's home). */
const remoteRuns = path.join(os.homedir(), '.wheelhouse', 'runs');

/** The machine a job runs on: how the test gets it (a real sshd, a real single-node Slurm cluster) and what the app calls it. */
interface Machine {
  readonly kind: 'local' | 'ssh' | 'slurm';
  /** Why it cannot run here, or null. */
  readonly unavailable: string | null;
  /** Starts what it needs; the machine's environment/add, or null for this computer. */
  start(dir: string): Promise<EnvironmentAddParams | null>;
  stop(): Promise<void>;
  /** What the job page's "Runs on" says. */
  readonly name: string;
}

let sshd: TestSshd | undefined;
let cluster: TestSlurmCluster | undefined;
let slurmConf: string | undefined;

const MACHINES: readonly Machine[] = [
  { kind: 'local', unavailable: null, name: 'This computer', start: async () => null, stop: async () => undefined },
  {
    kind: 'ssh',
    unavailable: sshdUnavailable(),
    name: 'Build box',
    start: async (dir) => {
      sshd = await startSshd(dir);
      return {
        environmentId: 'build-box',
        name: 'Build box',
        execServerUrl: `ssh://${sshd.user}@${sshd.host}:${sshd.port}`,
        privateKey: sshd.privateKey,
        hostKeyFingerprint: sshd.hostKeyFingerprint(),
      };
    },
    stop: async () => sshd?.stop(),
  },
  {
    kind: 'slurm',
    unavailable: slurmUnavailable(),
    name: 'Lab cluster',
    start: async (dir) => {
      cluster = await startSlurmCluster(dir);
      // The runtime's sbatch and squeue find the test cluster as any Slurm client does.
      slurmConf = process.env['SLURM_CONF'];
      process.env['SLURM_CONF'] = cluster.confPath;
      return { environmentId: 'lab-cluster', name: 'Lab cluster', execServerUrl: `slurm:///?partition=${cluster.partition}&time=5&mem=100M&cpus=1` };
    },
    stop: async () => {
      if (slurmConf === undefined) delete process.env['SLURM_CONF'];
      else process.env['SLURM_CONF'] = slurmConf;
      await cluster?.stop();
    },
  },
];

/**
 * The same command job, made in the New job dialog, on this computer, on a
 * computer over SSH (Debian's sshd on 127.0.0.1) and on a Slurm cluster
 * (slurm-wlm + munge, one node): the job page streams its output and its
 * progress while it runs, says where it runs (and the Slurm job id), the
 * dashboard row says where too, and the job finishes.
 */
describe.each(MACHINES)('a command job on $kind, in Chromium', (machine) => {
  const cleanups = useCleanups();
  let machineDir: string;
  let keyDir: string;
  let environment: EnvironmentAddParams | null;

  beforeAll(async () => {
    if (machine.unavailable) return;
    machineDir = await mkdtemp(path.join(os.tmpdir(), `wheelhouse-e2e-${machine.kind}-`));
    keyDir = await mkdtemp(path.join(os.tmpdir(), 'wheelhouse-e2e-keys-'));
    environment = await machine.start(machineDir);
  });
  afterAll(async () => {
    if (machine.unavailable) return;
    await machine.stop();
    await rm(machineDir, { recursive: true, force: true });
    await rm(keyDir, { recursive: true, force: true });
  });

  it.skipIf(machine.unavailable !== null)('runs there with live output and progress, says where, and finishes', async () => {
    const served = await openServedPage(cleanups, {
      homePrefix: `wheelhouse-e2e-job-${machine.kind}-`,
      // The SSH machine's key goes to a private file, as on a computer without a keychain.
      runtime: { secretStore: () => new PrivateFileSecretStore(path.join(keyDir, 'keys.json')) },
    });
    const { page } = served;
    const folder = await mkdtemp(path.join(os.tmpdir(), 'wheelhouse-e2e-job-folder-'));
    cleanups.push(() => rm(folder, { recursive: true, force: true }));
    if (environment) {
      const client = await served.runtime.client();
      await client.request('environment/add', environment);
      // The page learns of machines as it loads them: open it again to see the one just added.
      await page.reload();
    }

    await page.getByTestId('open-jobs').click();
    await page.getByTestId('new-job').click();
    const dialog = page.getByTestId('new-job-dialog');
    await dialog.getByTestId('job-name').fill('Build steps');
    if (environment) {
      await dialog.getByTestId('job-run-on').selectOption(environment.environmentId);
      await dialog.getByTestId('job-remote-cwd').fill(folder);
    } else {
      await dialog.getByTestId('folder-input').fill(folder);
    }
    // Two steps of four, then it waits for the test's word (a file in its folder), then the rest.
    await dialog.getByTestId('job-command').fill('for i in 1 2 3 4; do echo "step $i/4 in $(pwd)"; [ "$i" != 2 ] || while [ ! -e go ]; do sleep 0.05; done; done; echo finished');
    // Progress from counts such as "2/4" is on by default.
    expect(await dialog.getByRole('checkbox', { name: /Show progress from percentages and counts/ }).isChecked()).toBe(true);
    await dialog.getByTestId('job-submit').click();

    const jobPage = page.getByTestId('job-page');
    await jobPage.and(page.locator('[data-status="running"]')).waitFor();
    const log = page.getByTestId('job-log');
    await expect.poll(() => log.innerText()).toContain(`step 2/4 in ${folder}`);
    expect(await log.innerText()).not.toContain('step 3/4');
    await expect.poll(() => jobPage.getByTestId('job-progress-label').textContent()).toMatch(/^50%/);
    expect(await jobPage.getByTestId('job-runs-on').textContent()).toBe(machine.name);
    if (machine.kind === 'slurm') {
      // The cluster's own job id, as squeue knows the job.
      const listed = (await cluster!.client('/usr/bin/squeue', ['-h', '-o', '%i %j'])).trim();
      await expect.poll(() => jobPage.getByTestId('job-slurm-id').textContent()).toBe(listed.split(' ')[0]);
    } else {
      expect(await jobPage.getByTestId('job-slurm-id').count()).toBe(0);
    }
    await snap(page, `job-on-${machine.kind}-1-running`);
    expect(await axeProblems(page)).toEqual([]);

    // The dashboard's row says where it runs, while it runs.
    await page.getByTestId('job-back').click();
    const row = page.getByTestId('job-row').filter({ hasText: 'Build steps' });
    expect(await row.getAttribute('data-status')).toBe('running');
    if (environment) expect(await row.getByTestId('job-row-where').textContent()).toContain(`on ${machine.name}`);
    else expect(await row.getByTestId('job-row-where').count()).toBe(0);
    await expect.poll(() => row.getByTestId('job-progress-label').textContent()).toMatch(/^50%/);
    await snap(page, `job-on-${machine.kind}-2-row`);
    const jobId = (await row.getAttribute('data-job-id'))!;
    cleanups.push(async () => {
      for (const name of fs.existsSync(remoteRuns) ? fs.readdirSync(remoteRuns) : []) {
        if (name.startsWith(`${jobId}-`)) await rm(path.join(remoteRuns, name), { recursive: true, force: true });
      }
    });

    // Let it go on: the rest of its lines arrive, and it finishes.
    await row.getByTestId('job-row-open').click();
    await writeFile(path.join(folder, 'go'), '');
    await jobPage.and(page.locator('[data-status="completed"]')).waitFor();
    await expect.poll(() => log.innerText()).toContain('finished');
    const lines = (await log.innerText()).split('\n').filter((line) => line.includes('step '));
    expect(lines.map((line) => line.match(/step \d\/4/)![0])).toEqual(['step 1/4', 'step 2/4', 'step 3/4', 'step 4/4']);
    await expect.poll(() => jobPage.getByTestId('job-progress-label').textContent()).toMatch(/^100%/);
    await snap(page, `job-on-${machine.kind}-3-finished`);
  }, 120_000);
});
