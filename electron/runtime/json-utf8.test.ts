import { describe, expect, it } from 'vitest';
import { jsonEscapedLength, writeJsonEscaped } from './json-utf8.js';

/** What the wire carried before: the decoded text through JSON.stringify, as UTF-8, without its quotes. */
const stringified = (data: Buffer) => {
  const text = Buffer.from(JSON.stringify(data.toString('utf8')), 'utf8');
  return text.subarray(1, text.length - 1);
};

describe('JSON string contents from UTF-8 bytes', () => {
  const samples = [
    Buffer.alloc(0),
    Buffer.from(Array.from({ length: 128 }, (_, byte) => byte)),
    Buffer.from('plain ascii, "quoted", back\\slash, /slash'),
    Buffer.from('héllo\r\n\u001b[31m✓\u001b[0m\t终端 🚀 \u2028 \u2029 \u007f \uFFFD'),
    Buffer.from('1\r\n2\r\n3\r\n'.repeat(1000)),
  ];

  it('is byte for byte what JSON.stringify writes for the decoded text', () => {
    for (const data of samples) {
      const expected = stringified(data);
      expect(jsonEscapedLength(data)).toBe(expected.length);
      const into = Buffer.alloc(expected.length + 4, '.');
      expect(writeJsonEscaped(data, into, 2)).toBe(2 + expected.length);
      expect(into.subarray(2, 2 + expected.length).equals(expected)).toBe(true);
      expect(into.toString('latin1', 0, 2) + into.toString('latin1', 2 + expected.length)).toBe('....');
    }
  });
});
