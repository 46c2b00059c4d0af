import { RpcClient, type Transport } from '../shared/protocol/client.js';
import type { Runtime } from '../electron/host/runtime.js';
import { createTestRuntime, type TestRuntimeOptions } from '../test-support/test-runtime.js';
import { RpcHost } from '../electron/server/rpc-host.js';
import { startWebServer, type RunningWebServer } from '../electron/server/web-server.js';

/**
 * The runtime and its web server in this process, so a spec can stop it and
 * bring it back on the same port with the same token: what a page sees when
 * the server restarts under it.
 */
export class InProcessRuntime {
  private readonly runtime: Runtime;
  private readonly host: RpcHost<Runtime>;
  private server: RunningWebServer | null = null;

  /** `options`: what the spec drives itself, e.g. the jobs' and schedules' clock. */
  constructor(home: string, options: Omit<TestRuntimeOptions, 'home'> = {}) {
    this.runtime = createTestRuntime({ home, ...options });
    this.host = new RpcHost(this.runtime);
  }

  /** Serves the built renderer and the WebSocket on loopback. */
  async listen(options: { port: number; token: string; staticRoot: string }): Promise<RunningWebServer> {
    this.server = await startWebServer(this.host, options);
    return this.server;
  }

  /** An initialized protocol client attached directly to the host (no socket). */
  async client(): Promise<RpcClient> {
    const listeners = new Set<(text: string) => void>();
    const connection = this.host.connect('in-process', {
      send: (text) => queueMicrotask(() => listeners.forEach((listener) => listener(text))),
    });
    const transport: Transport = {
      send: (text) => void connection.receive(text),
      onMessage: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      onClose: () => () => undefined,
    };
    const client = new RpcClient(transport, { validateResults: true });
    await client.request('initialize', { clientInfo: { name: 'wheelhouse-e2e', version: '0' } });
    return client;
  }

  /** Closes the server (dropping every socket), the host and the runtime. */
  async close(): Promise<void> {
    await this.server?.close();
    this.host.close();
    this.runtime.close();
  }
}
