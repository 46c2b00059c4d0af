import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TempDirs } from '../../test-support/temp-dir.js';
import { ConfigService } from '../config/config-service.js';
import { homePaths } from '../runtime/home.js';
import { EnvironmentOnlySecretStore } from '../secrets/environment-secret-store.js';
import { StateStore } from '../store/state-store.js';
import { composeRuntime } from './compose-runtime.js';
import { lockHome } from './lock-home.js';
import { Runtime } from './runtime.js';

const temp = new TempDirs();
afterEach(() => temp.cleanup());

function parts(home: string) {
  const config = new ConfigService(homePaths(home).config);
  return {
    home,
    lock: lockHome(home),
    config,
    secrets: new EnvironmentOnlySecretStore((id) => config.provider(id)?.envKey ?? null),
    durable: StateStore.open(path.join(home, 'state.sqlite')),
    memory: StateStore.inMemory(),
  };
}

describe('the runtime lifecycle (electron/host/runtime.ts)', () => {
  it('touches nothing process-wide until start(), and undoes it all on close()', () => {
    const exitHooks = process.listenerCount('exit');
    const runtime = new Runtime(composeRuntime(parts(temp.make()), { startMcpServers: false }));
    expect(process.listenerCount('exit')).toBe(exitHooks);

    runtime.start();
    runtime.start(); // once only
    expect(process.listenerCount('exit')).toBe(exitHooks + 1);

    runtime.close();
    expect(process.listenerCount('exit')).toBe(exitHooks);
  });

  it('answers requests through the dispatcher over the namespace handlers', async () => {
    const runtime = Runtime.open(parts(temp.make()), { startMcpServers: false });
    try {
      const ctx = { session: { connectionId: 'c1', carrier: 'in-process' as const, clientInfo: null, optOut: new Set<string>() } };
      const { thread } = await runtime.dispatcher.call('thread/start', {}, ctx);
      expect((await runtime.dispatcher.call('thread/list', {}, ctx)).data.map((listed) => listed.id)).toEqual([thread.id]);
    } finally {
      await runtime.shutdown();
    }
  });
});
