import fs from 'node:fs';
import path from 'node:path';
import { afterEach } from 'vitest';
import type { AnyNotification } from '../shared/protocol/index.js';
import { PrivateFileSecretStore } from '../electron/secrets/private-file-secret-store.js';
import { mockModelConfig } from './agent-commands.js';
import { JobTestKit } from './job-test-kit.js';
import { startMockModelServer, type MockModelServer } from './mock-model/index.js';
import type { TestSshd } from './sshd.js';
import { TempDirs } from './temp-dir.js';
import { waitUntil } from './waiting.js';

export interface MachineThreadKit {
  readonly k: JobTestKit;
  /** The mock model of this runtime alone: a stopped turn leaves no reply for the next test. */
  readonly mock: MockModelServer;
  /** The machine's folder: a folder of this computer reached only over SSH. */
  readonly remoteFolder: string;
}

/**
 * Runtimes whose threads work on the test sshd as machine `box` ("Build box", key and host key
 * pinned), for one test file. After each test every runtime shuts down, its mock model closes, and
 * the folders go once every SSH session has closed (a test that leaves one open fails there).
 */
export function useMachineThreads(sshd: () => TestSshd | undefined) {
  const temp = new TempDirs();
  const opened: { k: JobTestKit; mock: MockModelServer }[] = [];
  afterEach(async () => {
    for (const { k, mock } of opened.splice(0)) {
      await k.runtime.shutdown();
      await mock.close();
    }
    const server = sshd();
    if (server) await waitUntil(() => server.sessionPids().length === 0, { what: 'every SSH session to close' });
    temp.cleanup();
  });
  return {
    temp,
    async open(server: TestSshd): Promise<MachineThreadKit> {
      const mock = await startMockModelServer();
      const home = temp.make('wheelhouse-machine-home-');
      fs.writeFileSync(path.join(home, 'config.toml'), mockModelConfig(mock));
      const k = new JobTestKit(home, { secretStore: () => new PrivateFileSecretStore(path.join(home, 'api-keys.json')) });
      opened.push({ k, mock });
      const remoteFolder = temp.make('wheelhouse-remote-folder-');
      await k.call('environment/add', {
        environmentId: 'box',
        execServerUrl: `ssh://${server.user}@127.0.0.1:${server.port}${remoteFolder}`,
        privateKey: server.privateKey,
        hostKeyFingerprint: server.hostKeyFingerprint(),
        name: 'Build box',
      });
      return { k, mock, remoteFolder };
    },
  };
}

export const notificationsOf = (k: JobTestKit, method: string): AnyNotification[] => k.notifications.filter((n) => n.method === method);
export const turnsCompleted = (k: JobTestKit): number => notificationsOf(k, 'turn/completed').length;
