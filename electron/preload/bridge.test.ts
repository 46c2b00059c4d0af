import { EventEmitter } from 'node:events';
import { build, stop as stopEsbuild } from 'esbuild';
import { afterEach, describe, expect, it } from 'vitest';
import { IPC_CHANNELS } from '../../shared/ipc.js';
import { MAX_MESSAGE_BYTES } from '../../shared/protocol/index.js';
import { repoRoot } from '../../test-support/paths.js';
import { createBridge, exceedsBytes, type RendererIpc } from './bridge.js';

// esbuild's build API keeps a service process running until told to stop.
afterEach(() => stopEsbuild());

/** ipcRenderer's send/on/removeListener over a Node EventEmitter, recording what was sent. */
class FakeRendererIpc extends EventEmitter implements RendererIpc {
  readonly sent: [string, string][] = [];
  send(channel: string, text: string): void {
    this.sent.push([channel, text]);
  }
  /** A message from the main process arriving on `channel`. */
  deliver(channel: string, payload: unknown): void {
    this.emit(channel, { sender: 'ipc-event' }, payload);
  }
}

/** Electron's webUtils.getPathForFile stands outside these tests: no file has a path. */
const noPaths = () => '';

describe('preload bridge', () => {
  it('exposes exactly host, send, onMessage and pathForFile, frozen', () => {
    const bridge = createBridge(new FakeRendererIpc(), noPaths);
    expect(Object.keys(bridge).sort()).toEqual(['host', 'onMessage', 'pathForFile', 'send']);
    expect(bridge.host).toBe('electron');
    expect(Object.isFrozen(bridge)).toBe(true);
  });

  it('sends protocol text on the to-main channel only', () => {
    const ipc = new FakeRendererIpc();
    createBridge(ipc, noPaths).send('{"id":1,"method":"initialize"}');
    expect(ipc.sent).toEqual([[IPC_CHANNELS.toMain, '{"id":1,"method":"initialize"}']]);
  });

  it('throws on non-strings and oversized messages instead of sending them', () => {
    const ipc = new FakeRendererIpc();
    const bridge = createBridge(ipc, noPaths);
    for (const bad of [42, { id: 1 }, null, undefined]) {
      expect(() => bridge.send(bad as unknown as string)).toThrow(TypeError);
    }
    expect(() => bridge.send('x'.repeat(MAX_MESSAGE_BYTES + 1))).toThrow(RangeError);
    // Multi-byte text is measured in UTF-8 bytes, not characters.
    expect(() => bridge.send('é'.repeat(MAX_MESSAGE_BYTES / 2 + 1))).toThrow(/exceeds/);
    expect(ipc.sent).toEqual([]);
    bridge.send('x'.repeat(MAX_MESSAGE_BYTES));
    expect(ipc.sent).toHaveLength(1);
  });

  it('delivers strings from the to-renderer channel until unsubscribed', () => {
    const ipc = new FakeRendererIpc();
    const bridge = createBridge(ipc, noPaths);
    const received: string[] = [];
    const off = bridge.onMessage((text) => received.push(text));
    ipc.deliver(IPC_CHANNELS.toRenderer, '{"id":1,"result":{}}');
    ipc.deliver(IPC_CHANNELS.toRenderer, { not: 'text' });
    ipc.deliver(IPC_CHANNELS.toMain, 'wrong channel');
    ipc.deliver('some-other-channel', 'other');
    off();
    off(); // idempotent
    ipc.deliver(IPC_CHANNELS.toRenderer, 'after unsubscribe');
    expect(received).toEqual(['{"id":1,"result":{}}']);
    expect(ipc.listenerCount(IPC_CHANNELS.toRenderer)).toBe(0);
    expect(() => bridge.onMessage('nope' as unknown as (text: string) => void)).toThrow(TypeError);
  });

  it('asks for the path of a dropped file only with an object, handing it over as it came', () => {
    const seen: unknown[] = [];
    const bridge = createBridge(new FakeRendererIpc(), (file: never) => {
      seen.push(file);
      return '/home/person/project';
    });
    const dropped = { name: 'project' };
    expect(bridge.pathForFile(dropped)).toBe('/home/person/project');
    expect(seen).toEqual([dropped]);
    for (const bad of ['/etc/passwd', 42, null, undefined]) expect(() => bridge.pathForFile(bad)).toThrow(TypeError);
    expect(seen).toHaveLength(1);
  });

  it('measures UTF-8 bytes exactly', () => {
    for (const text of ['', 'abc', 'é', '€', '😀', 'a😀b', '\ud800', '\udc00x', 'ü'.repeat(10)]) {
      const bytes = Buffer.byteLength(text, 'utf8');
      expect(exceedsBytes(text, bytes), text).toBe(false);
      if (bytes > 0) expect(exceedsBytes(text, bytes - 1), text).toBe(true);
    }
  });
});

describe('preload bundle', () => {
  it('is one self-contained file that requires only electron (a sandboxed preload can load nothing else)', async () => {
    const result = await build({
      entryPoints: ['electron/preload/preload.ts'],
      absWorkingDir: repoRoot,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      external: ['electron'],
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const imports = Object.values(result.metafile.outputs).flatMap((output) => output.imports.map((i) => i.path));
    expect(imports).toEqual(['electron']);
    const bytes = result.outputFiles.reduce((sum, file) => sum + file.contents.byteLength, 0);
    expect(bytes).toBeLessThan(16 * 1024); // no schema library or protocol code dragged in
  });
});
