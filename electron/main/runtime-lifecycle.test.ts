import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode, type DesktopRuntimeState } from '../../shared/protocol/index.js';
import { MessageInbox } from '../../test-support/message-inbox.js';
import { TempDirs } from '../../test-support/temp-dir.js';
import { createTestRuntime } from '../../test-support/test-runtime.js';
import type { DesktopHandlers } from '../host/start-runtime.js';
import type { Runtime } from '../host/runtime.js';
import { EnvironmentOnlySecretStore } from '../secrets/environment-secret-store.js';
import { DesktopActivity } from './desktop-activity.js';
import { openDesktopServices, type DesktopServices } from './desktop-services.js';
import { explainStartupError } from './native-binding.js';
import { RuntimeLifecycle } from './runtime-lifecycle.js';

const temp = new TempDirs();
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  temp.cleanup();
});

/** The desktop app's runtime lifecycle on a real home, as main.ts builds it (Electron left out). */
function desktopApp(home: string) {
  const errors: unknown[] = [];
  const activity = new DesktopActivity({ onNotice: () => undefined, onWithdrawn: () => undefined, onCounts: () => undefined });
  const desktop: DesktopHandlers = {
    'desktop/state/read': () => ({ runtime: lifecycle.state, openAtLogin: null, open: null }),
    'desktop/openAtLogin/set': () => ({ openAtLogin: false }),
    'desktop/runtime/restart': () => {
      void lifecycle.restart();
      return {};
    },
  };
  const lifecycle: RuntimeLifecycle<DesktopServices> = new RuntimeLifecycle<DesktopServices>({
    open: () =>
      openDesktopServices({
        runtime: { home, defaults: { cwd: home }, logError: (_m, e) => errors.push(e), secretStore: (envKeyFor) => new EnvironmentOnlySecretStore(envKeyFor, 'no keys in tests') },
        desktop,
        activity,
        logError: (_m, e) => errors.push(e),
      }),
    ready: (services) => services.runtime.ready,
    close: (services, jobs) => services.close(jobs),
    describe: (error) => explainStartupError(error, undefined, false),
  });
  const states: DesktopRuntimeState['state'][] = [];
  lifecycle.onChange((state) => states.push(state.state));
  cleanups.push(() => lifecycle.shutdown('keep'));
  const until = (state: DesktopRuntimeState['state']) =>
    new Promise<void>((resolve) => {
      if (lifecycle.state.state === state) return resolve();
      const off = lifecycle.onChange((next) => {
        if (next.state !== state) return;
        off();
        resolve();
      });
    });
  return { lifecycle, states, until, errors };
}

/** A window's connection to the current services, as the IPC carrier opens one. */
async function connect(services: DesktopServices) {
  const inbox = new MessageInbox();
  const connection = services.host.connect('ipc', { send: (text) => inbox.push(text) });
  let id = 0;
  const call = async (method: string, params: unknown = {}) => {
    id += 1;
    await connection.receive(JSON.stringify({ id, method, params }));
    return inbox.response(id);
  };
  expect(await call('initialize', { clientInfo: { name: 'wheelhouse-ui', version: '0' } })).toHaveProperty('result');
  return { call, inbox };
}

describe("the desktop app's runtime", () => {
  it('opens, answers the window, and shuts down', async () => {
    const home = temp.make();
    const { lifecycle, until, states } = desktopApp(home);
    const services = lifecycle.start();
    await until('running');
    const window = await connect(services);
    expect((await window.call('desktop/state/read') as { result: unknown }).result).toEqual({ runtime: { state: 'running' }, openAtLogin: null, open: null });
    expect(await window.call('thread/list')).toHaveProperty('result');
    await lifecycle.shutdown('keep');
    expect(lifecycle.running).toBeNull();
    expect(states).toEqual(['starting', 'running']);
  });

  it('says in plain words why it could not start, still answers the window, and restarts once the cause is gone', async () => {
    const home = temp.make();
    const other: Runtime = createTestRuntime({ home });
    cleanups.push(() => other.close());
    const { lifecycle, until, states } = desktopApp(home);
    const failed = lifecycle.start();
    await until('failed');
    const reason = lifecycle.state.state === 'failed' ? lifecycle.state.reason : '';
    expect(reason).toMatch(/^Another Wheelhouse window is using Wheelhouse's data, so this one cannot open it\. Close the other one/);

    const window = await connect(failed);
    expect((await window.call('desktop/state/read') as { result: unknown }).result).toMatchObject({ runtime: { state: 'failed', reason } });
    const refused = await window.call('thread/list');
    expect(refused).toMatchObject({ error: { code: ErrorCode.Internal } });

    // The other Wheelhouse closes; the person presses "Restart Wheelhouse".
    other.close();
    expect((await window.call('desktop/runtime/restart') as { result: unknown }).result).toEqual({});
    await until('running');
    expect(states).toEqual(['starting', 'failed', 'restarting', 'starting', 'running']);
    const fresh = await connect(lifecycle.running!);
    expect(await fresh.call('thread/list')).toHaveProperty('result');
  });

  it('tells the connected window when it fails or restarts', async () => {
    const home = temp.make();
    const { lifecycle, until } = desktopApp(home);
    lifecycle.onChange((runtime) => lifecycle.running?.host.broadcast('desktop/runtime/changed', { runtime }));
    const services = lifecycle.start();
    await until('running');
    const window = await connect(services);
    void lifecycle.restart();
    const told = await window.inbox.notification('desktop/runtime/changed');
    expect(told.params).toEqual({ runtime: { state: 'restarting' } });
    await until('running');
  });
});

describe('hosts other than the desktop app', () => {
  it('refuse the desktop methods with a sentence saying whose they are', async () => {
    const runtime = createTestRuntime({ home: temp.make() });
    cleanups.push(() => runtime.close());
    const ctx = { session: { connectionId: 'c', carrier: 'in-process' as const, clientInfo: null, optOut: new Set<string>() } };
    await expect(runtime.dispatcher.call('desktop/openAtLogin/set', { openAtLogin: true }, ctx)).rejects.toMatchObject({
      code: ErrorCode.MethodNotFound,
      message: expect.stringContaining('belongs to the Wheelhouse desktop app'),
    });
  });
});
