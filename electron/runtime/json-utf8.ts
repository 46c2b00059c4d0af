/**
 * JSON string contents written straight from UTF-8 bytes, byte for byte what
 * `JSON.stringify` of the decoded text writes (as UTF-8). For a command's output:
 * building its notification from the bytes skips decoding them to a string,
 * escaping that on the JavaScript heap and encoding it back for the socket.
 * Only for valid UTF-8 (`isUtf8`): its text has no lone surrogates, the one
 * case where JSON.stringify escapes a character of 0x80 and above.
 */

/** What each byte becomes: 1 itself, 2 a two-character escape, 6 a `\u00xx` escape. */
const ESCAPED_LENGTH = new Uint8Array(256).fill(1);
const SHORT_ESCAPES: Readonly<Record<number, string>> = { 0x08: 'b', 0x09: 't', 0x0a: 'n', 0x0c: 'f', 0x0d: 'r', 0x22: '"', 0x5c: '\\' };
for (let byte = 0; byte < 0x20; byte += 1) ESCAPED_LENGTH[byte] = 6;
for (const byte of Object.keys(SHORT_ESCAPES)) ESCAPED_LENGTH[Number(byte)] = 2;
const SHORT = new Uint8Array(256);
for (const [byte, letter] of Object.entries(SHORT_ESCAPES)) SHORT[Number(byte)] = letter.charCodeAt(0);
const HEX = Buffer.from('0123456789abcdef', 'latin1');

/** Bytes `data` takes between the quotes of a JSON string. */
export function jsonEscapedLength(data: Buffer): number {
  let length = 0;
  for (let i = 0; i < data.length; i += 1) length += ESCAPED_LENGTH[data[i]!]!;
  return length;
}

/** Writes `data` escaped as JSON string contents at `at` in `into` (room for jsonEscapedLength); returns where it ends. */
export function writeJsonEscaped(data: Buffer, into: Buffer, at: number): number {
  let out = at;
  for (let i = 0; i < data.length; i += 1) {
    const byte = data[i]!;
    const length = ESCAPED_LENGTH[byte]!;
    if (length === 1) {
      into[out++] = byte;
    } else if (length === 2) {
      into[out++] = 0x5c;
      into[out++] = SHORT[byte]!;
    } else {
      into[out++] = 0x5c;
      into[out++] = 0x75; // u
      into[out++] = 0x30;
      into[out++] = 0x30;
      into[out++] = HEX[byte >> 4]!;
      into[out++] = HEX[byte & 15]!;
    }
  }
  return out;
}
