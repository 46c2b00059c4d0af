import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { collect } from '../../test-support/exec.js';
import { TempDirs } from '../../test-support/temp-dir.js';
import { ConfigService } from '../config/config-service.js';
import { resolveLoginEnvironment, type ProcessSupervisor } from '../exec/index.js';
import { superviseProcesses } from './process-supervisor.js';

/** The host builds the one supervisor; these are the two rules it may never leave out. */
const temp = new TempDirs();
const supervisors: ProcessSupervisor[] = [];
afterEach(async () => {
  await Promise.all(supervisors.splice(0).map((supervisor) => supervisor.dispose()));
  temp.cleanup();
});

function hostSupervisor(home: string): ProcessSupervisor {
  const supervisor = superviseProcesses(home, new ConfigService(path.join(home, 'config.toml')), {
    loginEnvironment: async () => {
      const login = await resolveLoginEnvironment({ shell: '/bin/sh' });
      return { ...login, env: { ...login.env, WH_ACME_KEY: 'acme-secret', WH_LATER_KEY: 'later-secret' } };
    },
  });
  supervisors.push(supervisor);
  return supervisor;
}

async function run(supervisor: ProcessSupervisor, command: string, cwd: string, sandboxed = false): Promise<string> {
  const child = await supervisor.spawn({ command: ['sh', '-c', command], cwd, tty: false, ...(sandboxed ? { sandbox: { mode: 'workspace-write' } } : {}) });
  const seen = collect(child);
  await child.exited;
  return seen.text().trim();
}

const provider = (id: string, envKey: string) => `[model_providers.${id}]\nname = "${id}"\nbase_url = "https://${id}.test/v1"\nenv_key = "${envKey}"\n`;

describe('superviseProcesses (the host-built supervisor)', () => {
  it('keeps every provider key config.toml names out of children, including one added and renamed away mid-run', async () => {
    const home = temp.make();
    const configFile = path.join(home, 'config.toml');
    fs.writeFileSync(configFile, provider('acme', 'WH_ACME_KEY'));
    const supervisor = hostSupervisor(home);
    const print = 'printf "acme=[%s] later=[%s]" "$WH_ACME_KEY" "$WH_LATER_KEY"';
    expect(await run(supervisor, print, temp.make())).toBe('acme=[] later=[later-secret]');

    fs.writeFileSync(configFile, provider('acme', 'WH_ACME_KEY') + provider('later', 'WH_LATER_KEY'));
    expect(await run(supervisor, print, temp.make())).toBe('acme=[] later=[]');

    fs.writeFileSync(configFile, '');
    expect(await run(supervisor, print, temp.make())).toBe('acme=[] later=[]');
  });

  it('keeps the home read-only to a sandboxed child, even when its workspace is inside the home', async (ctx) => {
    const home = temp.make();
    fs.writeFileSync(path.join(home, 'config.toml'), '');
    const supervisor = hostSupervisor(home);
    // Without bubblewrap nothing sandboxed can run here (electron/exec/sandbox-escapes.test.ts says why).
    if (!(await supervisor.sandboxStatus()).available) ctx.skip();
    const workspace = path.join(home, 'projects', 'app');
    fs.mkdirSync(workspace, { recursive: true });
    const text = await run(supervisor, `echo ok > app.txt && echo "workspace:ok"; echo x >> ${home}/config.toml && echo "config:CHANGED"; exit 0`, workspace, true);
    expect(text).toContain('workspace:ok');
    expect(text).not.toContain('config:CHANGED');
    expect(fs.readFileSync(path.join(home, 'config.toml'), 'utf8')).toBe('');
  });
});
