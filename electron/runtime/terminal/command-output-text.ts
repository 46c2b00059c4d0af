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
  writeBase64(chunk.data, bytes, headBytes);
  bytes.write(tail, headBytes + base64Bytes, 'latin1');
  return bytes;
}

const ALPHABET = Buffer.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/', 'latin1');
/** Every 12 bits of input as its two base64 characters (low byte first). */
const PAIRS = new Uint16Array(4096).map((_, bits) => ALPHABET[bits >> 6]! | (ALPHABET[bits & 63]! << 8));

/** Base64 of `data` written at `at` in `into`, without a string on the JavaScript heap. */
function writeBase64(data: Buffer, into: Buffer, at: number): void {
  const whole = data.length - (data.length % 3);
  let out = at;
  for (let i = 0; i < whole; i += 3) {
    const bits = (data[i]! << 16) | (data[i + 1]! << 8) | data[i + 2]!;
    const high = PAIRS[bits >> 12]!;
    const low = PAIRS[bits & 4095]!;
    into[out] = high & 255;
    into[out + 1] = high >> 8;
    into[out + 2] = low & 255;
    into[out + 3] = low >> 8;
    out += 4;
  }
  if (whole < data.length) into.write(data.subarray(whole).toString('base64'), out, 'latin1');
}
