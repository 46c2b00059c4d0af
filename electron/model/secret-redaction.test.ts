import { describe, expect, it } from 'vitest';
import { userRequest } from '../../test-support/mock-model/model-test-kit.js';
import { redactSecrets, redactTurnError, withRedactedErrors } from './secret-redaction.js';
import { ModelError, type ModelClient, type ModelStreamEvent } from './types.js';

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
    const text =
      'The provider had a server error (503). Try again shortly. model deepseek-chat at http://127.0.0.1:8080/v1, thread 0b6f3c2e-8a41-4d7e-9c55-2f1e0d9a7b13';
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

describe('withRedactedErrors', () => {
  it('cleans thrown ModelErrors and retry reasons of the client key, and passes everything else through', async () => {
    const key = 'plain-words-secret';
    const inner: ModelClient = {
      async *stream() {
        yield { type: 'textDelta', delta: `text may say ${key}` };
        yield { type: 'retrying', attempt: 1, retry: { kind: 'request', number: 1, max: 2 }, delayMs: 10, reason: `failed with ${key}` };
        throw new ModelError('unauthorized', `rejected ${key}`, 401, `details ${key}`);
      },
      async listModels() {
        throw new ModelError('other', `list failed for ${key}`);
      },
    };
    const client = withRedactedErrors(inner, [key]);
    const events: ModelStreamEvent[] = [];
    let thrown: unknown;
    try {
      for await (const event of client.stream(userRequest('hi'))) events.push(event);
    } catch (error) {
      thrown = error;
    }
    // The model's own words are the user's business; only error text is cleaned.
    expect(events).toEqual([
      { type: 'textDelta', delta: `text may say ${key}` },
      { type: 'retrying', attempt: 1, retry: { kind: 'request', number: 1, max: 2 }, delayMs: 10, reason: 'failed with [redacted]' },
    ]);
    expect(thrown).toBeInstanceOf(ModelError);
    expect((thrown as ModelError).toTurnError()).toEqual({
      kind: 'unauthorized',
      message: 'rejected [redacted]',
      httpStatus: 401,
      additionalDetails: 'details [redacted]',
      address: null,
    });
    await expect(client.listModels(new AbortController().signal)).rejects.toThrow('list failed for [redacted]');
  });
});
