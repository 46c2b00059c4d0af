import { describe, expect, it } from 'vitest';
import { redactSecrets, redactTurnError } from './secret-redaction.js';

describe('redactSecrets', () => {
  it('cuts out every known key, the longest first', () => {
    const text = 'key one=my-local-secret, key two=my-local-secret-extended';
    expect(redactSecrets(text, ['my-local-secret', 'my-local-secret-extended', null])).toBe(
      'key one=[redacted], key two=[redacted]',
    );
  });

  it('cuts out key-shaped strings nobody configured', () => {
    const cases: Array<[string, string]> = [
      ['Incorrect API key provided: sk-proj-abc123DEF456.', 'Incorrect API key provided: [redacted].'],
      ['header was Authorization: Bearer eyJhbGciOi.J9x-yz', 'header was Authorization: Bearer [redacted]'],
      ['key AIzaSyA1234567890abcdefghijklmnop invalid', 'key [redacted] invalid'],
      ['token ghp_0123456789abcdefABCDEF rejected', 'token [redacted] rejected'],
      ['opaque 3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a end', 'opaque [redacted] end'],
    ];
    for (const [input, expected] of cases) expect(redactSecrets(input)).toBe(expected);
  });

  it('leaves ordinary error text alone', () => {
    const text = 'The provider had a server error (503). Try again shortly. model deepseek-chat at http://127.0.0.1:8080/v1';
    expect(redactSecrets(text, ['short'])).toBe(text);
  });

  it('cleans both the message and the details of a turn error', () => {
    const error = redactTurnError(
      { kind: 'unauthorized', message: 'bad key sk-abcdefgh12', httpStatus: 401, additionalDetails: 'got topsecret-value' },
      ['topsecret-value'],
    );
    expect(error).toEqual({ kind: 'unauthorized', message: 'bad key [redacted]', httpStatus: 401, additionalDetails: 'got [redacted]' });
  });
});
