import { describe, expect, it } from 'vitest';
import { CommandExecOutputDelta } from '../../../shared/protocol/index.js';
import { commandOutputDeltaBytes, writeBase64, type CommandOutputChunk } from './command-output-text.js';

/** What the wire carried before: the notification through JSON.stringify, as UTF-8. */
function stringified(chunk: CommandOutputChunk, emittedAtMs: number): Buffer {
  const params = { processId: chunk.processId, stream: chunk.stream, deltaBase64: chunk.data.toString('base64'), capReached: chunk.capReached };
  return Buffer.from(JSON.stringify({ method: 'command/exec/outputDelta', params, emittedAtMs }), 'utf8');
}

describe('command/exec/outputDelta built as bytes', () => {
  const outputs = [Buffer.alloc(0), Buffer.from('a'), Buffer.from('ab'), Buffer.from('abc'), Buffer.from('héllo\r\n\u001b[31m✓\u001b[0m\n'), Buffer.from([0, 255, 128, 10, 34, 92])];
  const processIds = ['flood', 'with "quotes" and \\ backslash', 'naïve ✓ 终端 🚀', 'control \u0001\n\t\u2028', ''];

  it('is byte for byte what JSON.stringify writes, whatever the process id, output, stream or cap', () => {
    for (const data of [...outputs, Buffer.from(Array.from({ length: 64 * 1024 + 1 }, (_, i) => i % 256))]) {
      for (const processId of processIds) {
        for (const stream of ['stdout', 'stderr'] as const) {
          for (const capReached of [false, true]) {
            const chunk = { processId, stream, data, capReached };
            expect(commandOutputDeltaBytes(chunk, 1_764_000_000_123).equals(stringified(chunk, 1_764_000_000_123))).toBe(true);
          }
        }
      }
    }
  });

  it('writes base64 in place exactly as Buffer does, at any even address and for every length modulo 3', () => {
    const data = Buffer.from(Array.from({ length: 3 * 1024 + 2 }, (_, i) => (i * 7919) % 256));
    const backing = Buffer.alloc(8 * 1024, '.');
    for (const length of [0, 1, 2, 3, 4, 5, 6, 1000, 1001, 1002, data.length]) {
      for (const at of [0, 2, 10]) {
        const expected = data.subarray(0, length).toString('base64');
        backing.fill('.');
        writeBase64(data.subarray(0, length), backing, at);
        expect(backing.toString('latin1', at, at + expected.length)).toBe(expected);
        // Nothing before or after the base64 is touched.
        expect(backing.toString('latin1', 0, at)).toBe('.'.repeat(at));
        expect(backing[at + expected.length]).toBe('.'.charCodeAt(0));
      }
    }
  });

  it('puts the base64 after texts of odd and even length alike (its two-byte stores need an even address)', () => {
    const data = Buffer.from(Array.from({ length: 999 }, (_, i) => i % 256));
    const parities = new Set<number>();
    for (const processId of ['a', 'ab', 'abc', 'abcd', '✓', '✓✓']) {
      const chunk = { processId, stream: 'stdout' as const, data, capReached: false };
      const bytes = commandOutputDeltaBytes(chunk, 7);
      parities.add(bytes.indexOf('"deltaBase64":"') % 2);
      expect(bytes.equals(stringified(chunk, 7))).toBe(true);
    }
    expect(parities).toEqual(new Set([0, 1]));
  });

  it('parses back to a valid delta carrying the same bytes', () => {
    const data = Buffer.from('line 1\nline 2\n');
    const message = JSON.parse(commandOutputDeltaBytes({ processId: 'p-1', stream: 'stdout', data, capReached: false }, 5).toString('utf8')) as {
      method: string;
      params: unknown;
      emittedAtMs: number;
    };
    expect(message.method).toBe('command/exec/outputDelta');
    expect(message.emittedAtMs).toBe(5);
    const delta = CommandExecOutputDelta.parse(message.params);
    expect(Buffer.from(delta.deltaBase64, 'base64').equals(data)).toBe(true);
  });
});
