import { afterEach, describe, expect, it } from 'vitest';
import { collect } from '../../test-support/exec.js';
import { TempDirs } from '../../test-support/temp-dir.js';
import { resolveLoginEnvironment } from './login-environment.js';
import { ProcessSupervisor } from './supervisor.js';
import type { SpawnSpec } from './types.js';

/**
 * Secret variables (provider keys) are removed by the supervisor itself, so
 * no caller can forget: every spawn, pty or pipes, sandboxed or not, unless
 * the spec inherits one by name or sets its own value.
 */
const temp = new TempDirs();
const supervisors: ProcessSupervisor[] = [];
afterEach(async () => {
  await Promise.all(supervisors.splice(0).map((supervisor) => supervisor.dispose()));
  temp.cleanup();
});

let secretNames = ['WH_TEST_PROVIDER_KEY', 'WH_TEST_OTHER_KEY'];

function supervisor(): ProcessSupervisor {
  const created = new ProcessSupervisor({
    logDir: temp.make('wheelhouse-secret-logs-'),
    loginEnvironment: async () => {
      const login = await resolveLoginEnvironment({ shell: '/bin/sh' });
      return { ...login, env: { ...login.env, WH_TEST_PROVIDER_KEY: 'provider-secret', WH_TEST_OTHER_KEY: 'other-secret', WH_TEST_PLAIN: 'plain' } };
    },
    secretVariables: () => secretNames,
  });
  supervisors.push(created);
  return created;
}

async function printed(sup: ProcessSupervisor, extra: Partial<SpawnSpec> = {}): Promise<string> {
  const child = await sup.spawn({
    command: ['sh', '-c', 'printf "provider=[%s] other=[%s] plain=[%s]\\n" "$WH_TEST_PROVIDER_KEY" "$WH_TEST_OTHER_KEY" "$WH_TEST_PLAIN"'],
    cwd: temp.make(),
    tty: false,
    ...extra,
  });
  const seen = collect(child);
  await child.exited;
  return seen.text().trim();
}

describe('secret variables and child processes', () => {
  it('are removed from every child, in a pty and with pipes; other variables stay', async () => {
    const sup = supervisor();
    expect(await printed(sup)).toBe('provider=[] other=[] plain=[plain]');
    expect(await printed(sup, { tty: true })).toBe('provider=[] other=[] plain=[plain]');
  });

  it('stay only where the spec inherits them by name or sets a value of its own', async () => {
    const sup = supervisor();
    expect(await printed(sup, { inheritSecrets: ['WH_TEST_PROVIDER_KEY'] })).toBe('provider=[provider-secret] other=[] plain=[plain]');
    expect(await printed(sup, { env: { WH_TEST_OTHER_KEY: 'chosen' } })).toBe('provider=[] other=[chosen] plain=[plain]');
    await expect(sup.spawn({ command: ['true'], cwd: temp.make(), inheritSecrets: ['A=B'] })).rejects.toMatchObject({ code: 'invalid-spec' });
  });

  it('are read at each spawn, so a provider added to the config counts from the next process', async () => {
    const sup = supervisor();
    secretNames = ['WH_TEST_PROVIDER_KEY'];
    try {
      expect(await printed(sup)).toBe('provider=[] other=[other-secret] plain=[plain]');
      secretNames = ['WH_TEST_PROVIDER_KEY', 'WH_TEST_OTHER_KEY', 'WH_TEST_PLAIN'];
      expect(await printed(sup)).toBe('provider=[] other=[] plain=[]');
    } finally {
      secretNames = ['WH_TEST_PROVIDER_KEY', 'WH_TEST_OTHER_KEY'];
    }
  });
});
