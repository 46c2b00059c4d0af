import fs from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectNoRunsLeft } from '../test-support/detached-runs.js';
import { slurmUnavailable, startSlurmCluster, type TestSlurmCluster } from '../test-support/slurm-cluster.js';
import { sshdUnavailable, startSshd, type TestSshd } from '../test-support/sshd.js';
import { axeProblems } from './axe.js';
import type { WheelhouseApp } from './harness.js';
import { useLaunchedApp } from './launched-app.js';
import { shootBothSchemes, snap } from './screenshots.js';

const unavailable = sshdUnavailable();
/** Run folders the job made on the "host" (this machine, under the SSH user's home). */
const remoteRuns = path.join(os.homedir(), '.wheelhouse', 'runs');

/** Checks no run is left going on the "host", then removes the jobs' run folders there. */
function cleanRemoteRuns(jobIds: string[]): void {
  try {
    if (fs.existsSync(remoteRuns)) expectNoRunsLeft(remoteRuns);
  } finally {
    for (const jobId of jobIds.splice(0)) {
      for (const name of fs.existsSync(remoteRuns) ? fs.readdirSync(remoteRuns) : []) {
        if (name.startsWith(`${jobId}-`)) fs.rmSync(path.join(remoteRuns, name), { recursive: true, force: true });
      }
    }
  }
}

/**
 * A person with no terminal adds a computer over SSH in Settings → Machines
 * (Debian's sshd on 127.0.0.1), is shown its host key and trusts it once,
 * runs a job there from the dashboard, sees where it runs, cannot remove the
 * machine or change its address while the job uses it but can rename it, then
 * renames it again once the job ended (its saved key kept).
 */
describe.skipIf(unavailable !== null)('Settings → Machines against a real sshd', () => {
  let sshd: TestSshd;
  let sshdDir: string;
  let app: WheelhouseApp;
  const jobIds: string[] = [];

  beforeAll(async () => {
    sshdDir = await mkdtemp(path.join(os.tmpdir(), 'wheelhouse-e2e-sshd-'));
    sshd = await startSshd(sshdDir);
  });
  afterAll(async () => {
    await sshd?.stop();
    await rm(sshdDir, { recursive: true, force: true });
  });
  // Registered first, so it runs after the app has closed.
  afterEach(() => cleanRemoteRuns(jobIds));
  useLaunchedApp({}, (parts) => ({ app } = parts));

  it('adds an SSH machine, trusts its host key once, runs a job there, refuses to remove it or change its address while the job runs but renames it, then edits it', async () => {
    const { page } = app;
    await page.getByTestId('open-settings').click();
    const section = page.getByTestId('machines-section');
    await section.waitFor();
    // Only this computer at first.
    await expect.poll(() => section.getByTestId('machine-row').count()).toBe(1);
    await section.getByTestId('machines-add').click();
    const form = section.getByTestId('machine-form');
    // Plain fields, checked where they are: nothing is sent while one is wrong.
    await form.getByTestId('machine-host').fill('not a host');
    await form.getByTestId('machine-add').click();
    await form.getByText('A host name or address').waitFor();
    await form.getByTestId('machine-name').fill('Build box');
    await form.getByTestId('machine-user').fill(sshd.user);
    await form.getByTestId('machine-host').fill(sshd.host);
    await form.getByTestId('machine-port').fill(String(sshd.port));
    await form.getByTestId('machine-privateKey').fill(sshd.privateKey);
    await snap(page, 'machines-1-add-form', section);
    expect(await axeProblems(page)).toEqual([]);
    await form.getByTestId('machine-add').click();

    // The first test asks about the host key: the fingerprint sshd really has, to trust once.
    const row = section.locator('[data-testid="machine-row"][data-environment-id="build-box"]');
    await row.getByTestId('machine-host-key').waitFor();
    expect(await row.getByTestId('machine-fingerprint').textContent()).toBe(sshd.hostKeyFingerprint());
    expect(await row.getByTestId('machine-status').textContent()).toBe('Not connected');
    await snap(page, 'machines-2-host-key', section);
    expect(await axeProblems(page)).toEqual([]);
    await row.getByTestId('machine-trust').click();
    await row.getByTestId('machine-test-ok').waitFor();
    await expect.poll(() => row.getByTestId('machine-status').textContent()).toBe('Connected');
    await row.getByTestId('machine-test-ok').locator('summary').click();
    expect(await row.getByTestId('machine-test-ok').innerText()).toContain(`uid=${process.getuid?.() ?? 0}`);
    // The key never lands in Wheelhouse's files beside the machine.
    expect(fs.readFileSync(path.join(app.home, 'environments.json'), 'utf8')).not.toContain('PRIVATE KEY');
    await snap(page, 'machines-3-connected', section);

    // A test again is answered without a question: the key is remembered.
    await row.getByTestId('machine-test').click();
    await row.getByTestId('machine-test-ok').waitFor();
    expect(await row.getByTestId('machine-host-key').count()).toBe(0);
    await page.getByTestId('setup-done').click();

    // A job on the machine, from the dashboard's dialog.
    await page.getByTestId('open-jobs').click();
    await page.getByTestId('new-job').click();
    const dialog = page.getByTestId('new-job-dialog');
    await dialog.getByTestId('job-name').fill('Remote wait');
    await dialog.getByTestId('job-run-on').selectOption('build-box');
    await dialog.getByTestId('job-remote-cwd').fill('/tmp');
    await dialog.getByTestId('job-command').fill('echo "on $(hostname) in $(pwd)"; sleep 600');
    await snap(page, 'machines-4-new-job-run-on');
    expect(await axeProblems(page)).toEqual([]);
    await dialog.getByTestId('job-submit').click();
    const jobPage = page.getByTestId('job-page');
    await jobPage.and(page.locator('[data-status="running"]')).waitFor();
    expect(await jobPage.getByTestId('job-runs-on').textContent()).toBe('Build box');
    await expect.poll(() => page.getByTestId('job-log').innerText(), { timeout: 30_000 }).toContain(`on ${os.hostname()} in /tmp`);
    await snap(page, 'machines-5-job-page');
    await page.getByTestId('job-back').click();
    const jobRow = page.getByTestId('job-row').filter({ hasText: 'Remote wait' });
    expect(await jobRow.getByTestId('job-row-where').textContent()).toContain('on Build box');
    const jobId = await jobRow.getAttribute('data-job-id');
    jobIds.push(jobId!);
    await snap(page, 'machines-6-job-row');

    // Removing the machine while the job runs there is refused, naming the job.
    await page.getByTestId('open-settings').click();
    await row.getByTestId('machine-remove').click();
    const refused = row.getByTestId('machine-remove-refused');
    await refused.waitFor();
    expect(await refused.innerText()).toContain('Job “Remote wait” (running)');
    await snap(page, 'machines-7-remove-refused', section);

    // A new address is refused while the job runs, naming the job, and nothing changes.
    await row.getByTestId('machine-edit').click();
    const editForm = row.getByTestId('machine-form');
    expect(await editForm.getByTestId('machine-name').inputValue()).toBe('Build box');
    expect(await editForm.getByTestId('machine-port').inputValue()).toBe(String(sshd.port));
    await editForm.getByTestId('machine-name').fill('Build server');
    await editForm.getByTestId('machine-port').fill(String(sshd.port + 1));
    await editForm.getByTestId('machine-add').click();
    const editRefused = editForm.getByTestId('machine-edit-refused');
    await editRefused.waitFor();
    expect(await editRefused.innerText()).toContain('Build box is in use, so nothing was changed. Its name can be changed while jobs run there');
    expect(await editRefused.innerText()).toContain('Job “Remote wait” (running)');
    expect(await row.locator('.machine-name').textContent()).toBe('Build box');
    await shootBothSchemes(page, 'machines', 'edit-refused', row);
    expect(await axeProblems(page)).toEqual([]);

    // A new name touches no running work: saved at once, on the same connection, and tested again.
    await editForm.getByTestId('machine-port').fill(String(sshd.port));
    await editForm.getByTestId('machine-add').click();
    await expect.poll(() => row.locator('.machine-name').textContent()).toBe('Build server');
    expect(await row.getByTestId('machine-form').count()).toBe(0);
    await row.getByTestId('machine-test-ok').waitFor({ timeout: 30_000 });
    await snap(page, 'machines-7b-renamed-while-running', section);
    await page.getByTestId('setup-done').click();
    await page.getByTestId('open-jobs').click();
    expect(await jobRow.getAttribute('data-status')).toBe('running');
    await expect.poll(() => jobRow.getByTestId('job-row-where').textContent()).toContain('on Build server');

    // Once the job is cancelled, the machine can be edited again: its saved key is kept (sshd takes only that key) and it is tested again.
    await jobRow.getByTestId('job-row-cancel').click();
    await page.getByTestId('confirm-action').click();
    await expect.poll(() => jobRow.getAttribute('data-status'), { timeout: 30_000 }).toBe('cancelled');
    await page.getByTestId('open-settings').click();
    await row.getByTestId('machine-edit').click();
    // From the keyboard: the name is focused, typed over, and Enter saves.
    await expect.poll(() => editForm.getByTestId('machine-name').evaluate((input) => input === document.activeElement)).toBe(true);
    expect(await editForm.getByTestId('machine-privateKey').inputValue()).toBe('');
    expect(await editForm.getByTestId('machine-key-hint').textContent()).toContain('leave empty to keep the saved key');
    await editForm.getByTestId('machine-name').fill('Build host');
    await shootBothSchemes(page, 'machines', 'edit-form', row);
    expect(await axeProblems(page)).toEqual([]);
    await page.keyboard.press('Enter');
    await expect.poll(() => row.locator('.machine-name').textContent()).toBe('Build host');
    await row.getByTestId('machine-test-ok').waitFor({ timeout: 30_000 });
    expect(await row.getByTestId('machine-host-key').count()).toBe(0);
    expect(await row.getByTestId('machine-form').count()).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(app.home, 'environments.json'), 'utf8'))).toMatchObject({ environments: [{ environmentId: 'build-box', name: 'Build host', hasPrivateKey: true }] });
    await page.getByTestId('setup-done').click();

    // The job shows where it ran by the machine's new name.
    await page.getByTestId('open-jobs').click();
    await jobRow.getByTestId('job-row-open').click();
    await expect.poll(() => jobPage.getByTestId('job-runs-on').textContent()).toBe('Build host');
    await page.getByTestId('job-back').click();

    // With no job there, the machine goes.
    await page.getByTestId('open-settings').click();
    await row.getByTestId('machine-remove').click();
    await expect.poll(() => section.getByTestId('machine-row').count()).toBe(1);
    expect(app.errors).toEqual([]);
  }, 180_000);
});

/**
 * The same person adds the Slurm cluster this computer belongs to (a real
 * single-node slurm-wlm cluster), with its partition and a time limit, tests
 * it (the cluster's partitions show) and runs a job there to its end.
 */
describe.skipIf(slurmUnavailable() !== null)('Settings → Machines with a Slurm cluster on this computer', () => {
  let cluster: TestSlurmCluster;
  let clusterDir: string;
  let app: WheelhouseApp;
  const jobIds: string[] = [];
  let slurmConf: string | undefined;

  beforeAll(async () => {
    clusterDir = await mkdtemp(path.join(os.tmpdir(), 'wheelhouse-e2e-slurm-'));
    cluster = await startSlurmCluster(clusterDir);
    // The runtime's sbatch and squeue find the test cluster as any Slurm client does.
    slurmConf = process.env['SLURM_CONF'];
    process.env['SLURM_CONF'] = cluster.confPath;
  });
  afterAll(async () => {
    if (slurmConf === undefined) delete process.env['SLURM_CONF'];
    else process.env['SLURM_CONF'] = slurmConf;
    await cluster?.stop();
    await rm(clusterDir, { recursive: true, force: true });
  });
  // Registered first, so it runs after the app has closed.
  afterEach(() => cleanRemoteRuns(jobIds));
  useLaunchedApp({}, (parts) => ({ app } = parts));

  it('adds the cluster with its partition, tests it and runs a job on it to the end', async () => {
    const { page } = app;
    await page.getByTestId('open-settings').click();
    const section = page.getByTestId('machines-section');
    await section.getByTestId('machines-add').click();
    const form = section.getByTestId('machine-form');
    await form.getByTestId('machine-kind-slurm').click();
    await form.getByTestId('machine-slurm-here').click();
    await form.getByTestId('machine-name').fill('Lab cluster');
    await form.getByTestId('machine-partition').fill(cluster.partition);
    await form.getByTestId('machine-timeLimit').fill('5:00');
    await form.getByTestId('machine-memory').fill('nope');
    await form.getByTestId('machine-add').click();
    await form.getByText('A size such as 4G or 500M.').waitFor();
    await form.getByTestId('machine-memory').fill('');
    await snap(page, 'machines-8-slurm-form', section);
    expect(await axeProblems(page)).toEqual([]);
    await form.getByTestId('machine-add').click();

    const row = section.locator('[data-testid="machine-row"][data-environment-id="lab-cluster"]');
    await row.getByTestId('machine-test-ok').waitFor({ timeout: 30_000 });
    expect(await row.innerText()).toContain(`partition ${cluster.partition}, time 5:00`);
    await row.getByTestId('machine-test-ok').locator('summary').click();
    expect(await row.getByTestId('machine-test-ok').innerText()).toContain(cluster.partition);
    await snap(page, 'machines-9-slurm-tested', section);
    await page.getByTestId('setup-done').click();

    await page.getByTestId('open-jobs').click();
    await page.getByTestId('new-job').click();
    const dialog = page.getByTestId('new-job-dialog');
    await dialog.getByTestId('job-name').fill('Cluster hello');
    await dialog.getByTestId('job-run-on').selectOption('lab-cluster');
    await dialog.getByTestId('job-remote-cwd').fill('/tmp');
    await dialog.getByTestId('job-command').fill('echo "hello from job $SLURM_JOB_ID"');
    await dialog.getByTestId('job-submit').click();
    const jobPage = page.getByTestId('job-page');
    await jobPage.and(page.locator('[data-status="completed"]')).waitFor({ timeout: 60_000 });
    expect(await jobPage.getByTestId('job-runs-on').textContent()).toBe('Lab cluster');
    await expect.poll(() => page.getByTestId('job-log').innerText(), { timeout: 30_000 }).toMatch(/hello from job \d+/);
    // The page names the cluster's own job id: the one the job saw.
    const slurmJobId = (await page.getByTestId('job-log').innerText()).match(/hello from job (\d+)/)![1];
    await expect.poll(() => jobPage.getByTestId('job-slurm-id').textContent()).toBe(slurmJobId);
    await snap(page, 'machines-10-slurm-job');
    await page.getByTestId('job-back').click();
    const jobRow = page.getByTestId('job-row').filter({ hasText: 'Cluster hello' });
    expect(await jobRow.getByTestId('job-row-where').textContent()).toContain('on Lab cluster');
    jobIds.push((await jobRow.getAttribute('data-job-id'))!);

    // A job array of 3: one row, three sub-runs on its page, each with its state; one finds its lines.
    await page.getByTestId('new-job').click();
    await dialog.getByTestId('job-name').fill('Sweep');
    await dialog.getByTestId('job-run-on').selectOption('lab-cluster');
    await dialog.getByTestId('job-remote-cwd').fill('/tmp');
    await dialog.getByTestId('job-array-tasks').fill('0');
    await dialog.getByTestId('job-command').fill('echo "part $SLURM_ARRAY_TASK_ID"; [ "$SLURM_ARRAY_TASK_ID" != 1 ]');
    await dialog.getByTestId('job-retries').fill('0');
    await dialog.getByTestId('job-submit').click();
    await dialog.getByText('A whole number from 1 to 1000, or leave it empty for one task.').waitFor();
    await dialog.getByTestId('job-array-tasks').fill('3');
    await snap(page, '11-slurm-array-dialog', dialog);
    await dialog.getByTestId('job-submit').click();
    await jobPage.and(page.locator('[data-status="failed"]')).waitFor({ timeout: 60_000 });
    expect(await jobPage.getByTestId('job-detail').textContent()).toBe('3 tasks: 2 completed, 1 failed (task 1)');
    const tasks = jobPage.getByTestId('job-task');
    await expect.poll(() => tasks.evaluateAll((items) => items.map((item) => `${item.getAttribute('data-task')}:${item.getAttribute('data-state')}`))).toEqual(['0:completed', '1:failed', '2:completed']);
    await tasks.filter({ hasText: 'Task 1' }).getByRole('button').click();
    await expect.poll(() => jobPage.getByTestId('log-search-count').textContent()).toBe('1 of 1');
    expect(await page.getByTestId('log-search').inputValue()).toBe('[task 1] ');
    await snap(page, '12-slurm-array-job');
    expect(await axeProblems(page)).toEqual([]);
    await page.getByTestId('job-back').click();
    const sweepRow = page.getByTestId('job-row').filter({ hasText: 'Sweep' });
    expect(await sweepRow.getByTestId('job-row-where').textContent()).toContain('on Lab cluster');
    jobIds.push((await sweepRow.getAttribute('data-job-id'))!);
    expect(app.errors).toEqual([]);
  });
});
