import type { CommandExecOutputDelta } from '../../../shared/protocol/index.js';

/** One `command/exec/outputDelta` before encoding: the output itself as bytes. */
export interface CommandOutputChunk extends Omit<CommandExecOutputDelta, 'deltaBase64'> {
  readonly data: Buffer;
}

/**
 * The notification's wire text as UTF-8 bytes, byte for byte what
 * `JSON.stringify({ method, params, emittedAtMs })` writes for it. A terminal
 * flood sends one per 64 KB of output (87 KB of base64), and JSON.stringify
 * would scan and copy the base64 (which never needs escaping) on the
 * JavaScript heap, and a carrier flatten and encode it again: here the base64
 * is written once into the buffer the carrier sends, which the garbage
 * collector never copies.
 */
export function commandOutputDeltaBytes(chunk: CommandOutputChunk, emittedAtMs: number): Buffer {
  const head = `{"method":"command/exec/outputDelta","params":{"processId":${JSON.stringify(chunk.processId)},"stream":${JSON.stringify(chunk.stream)},"deltaBase64":"`;
  const tail = `","capReached":${chunk.capReached ? 'true' : 'false'}},"emittedAtMs":${JSON.stringify(emittedAtMs)}}`;
  const headBytes = Buffer.byteLength(head, 'utf8');
  const base64Bytes = Math.ceil(chunk.data.length / 3) * 4;
  const bytes = Buffer.allocUnsafe(headBytes + base64Bytes + tail.length);
  bytes.write(head, 0, 'utf8');
  bytes.write(chunk.data.toString('base64'), headBytes, 'latin1');
  bytes.write(tail, headBytes + base64Bytes, 'latin1');
  return bytes;
}
