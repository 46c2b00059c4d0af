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
  const length = headBytes + base64Bytes + tail.length;
  // The base64 is stored two characters at a time, which needs it to start at an even address:
  // one spare byte in front when the text before it has an odd length.
  const skew = headBytes % 2;
  const bytes = Buffer.allocUnsafeSlow(length + skew).subarray(skew);
  bytes.write(head, 0, 'utf8');
  writeBase64(chunk.data, bytes, headBytes);
  bytes.write(tail, headBytes + base64Bytes, 'latin1');
  return bytes;
}

const ALPHABET = Buffer.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/', 'latin1');
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
/** Every 12 bits of input as its two base64 characters, ordered so that a Uint16Array store writes the first one first. */
const PAIRS = new Uint16Array(4096).map((_, bits) => {
  const first = ALPHABET[bits >> 6]!;
  const second = ALPHABET[bits & 63]!;
  return LITTLE_ENDIAN ? first | (second << 8) : (first << 8) | second;
});

/**
 * Base64 of `data` written at `at` in `into`, without a string on the JavaScript heap.
 * `into.byteOffset + at` must be even: the characters are stored in pairs through a
 * Uint16Array, half the stores of byte by byte and about twice as fast (0.10 against
 * 0.18 ms per 64 KB).
 */
export function writeBase64(data: Buffer, into: Buffer, at: number): void {
  const whole = data.length - (data.length % 3);
  const pairs = new Uint16Array(into.buffer, into.byteOffset + at, (whole / 3) * 2);
  let out = 0;
  for (let i = 0; i < whole; i += 3) {
    const bits = (data[i]! << 16) | (data[i + 1]! << 8) | data[i + 2]!;
    pairs[out] = PAIRS[bits >> 12]!;
    pairs[out + 1] = PAIRS[bits & 4095]!;
    out += 2;
  }
  if (whole < data.length) into.write(data.subarray(whole).toString('base64'), at + out * 2, 'latin1');
}
