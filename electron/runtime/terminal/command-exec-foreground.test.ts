import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../shared/protocol/index.js';
import { inProcessPeer } from '../../../test-support/protocol-peer.js';
import { TempDirs } from '../../../test-support/temp-dir.js';
import { createTestRuntime } from '../../../test-support/test-runtime.js';
import { RpcHost } from '../../server/rpc-host.js';

/**
 * `command/exec/foreground`: what a terminal panel asks before it closes on
 * a shell — whether a program the person started there still runs, by name.
 */
const temp = new TempDirs();
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  temp.cleanup();
});

async function terminal() {
  const home = temp.make();
  const runtime = createTestRuntime({ home, defaults: { cwd: home } });
  const host = new RpcHost(runtime);
  cleanups.push(async () => {
    host.close();
    await runtime.shutdown();
  });
  const peer = await inProcessPeer(host, 'terminal-test');
  const call = (method: string, params: unknown) => peer.request(method, params);
  // An interactive shell (job control on), as the terminal panel runs one.
  peer.send('command/exec', { command: ['sh', '-i'], tty: true, processId: 'term', cwd: home, disableTimeout: true, disableOutputCap: true });
  let output = '';
  /** Resolves once the terminal has printed `text`. */
  const printed = (text: string) =>
    peer.inbox.take(
      (received) => {
        if (received.kind !== 'notification' || received.message.method !== 'command/exec/outputDelta') return false;
        output += Buffer.from((received.message.params as { deltaBase64: string }).deltaBase64, 'base64').toString('utf8');
        return output.includes(text);
      },
      `the terminal to print ${text}`,
    );
  const type = (text: string) => call('command/exec/write', { processId: 'term', deltaBase64: Buffer.from(text).toString('base64') });
  const foreground = async () => ((await call('command/exec/foreground', { processId: 'term' })) as { result: { program: string | null } }).result.program;
  // Ended and answered before the host closes, so no request is left waiting.
  cleanups.push(async () => {
    await call('command/exec/terminate', { processId: 'term' });
  });
  return { call, printed, type, foreground };
}

describe('the program in front of a terminal', () => {
  it('is nothing at the prompt, the program while one runs, and nothing again once it ends', async () => {
    const { printed, type, foreground } = await terminal();
    await type('echo "at-$((40+2))"\n');
    await printed('at-42');
    expect(await foreground()).toBeNull();

    // The program prints its marker itself, so it is in front by then; then it becomes `sleep`.
    await type('sh -c \'echo "run-$((6*7))"; exec sleep 30\'\n');
    await printed('run-42');
    expect(await foreground()).toMatch(/^(sh|sleep)$/);

    await type('\x03');
    await type('echo "back-$((1+1))"\n');
    await printed('back-2');
    expect(await foreground()).toBeNull();
  });

  it('is refused for a process id this connection never started', async () => {
    const { call } = await terminal();
    expect(await call('command/exec/foreground', { processId: 'nope' })).toMatchObject({ error: { code: ErrorCode.InvalidRequest } });
  });
});
