import { describe, expect, it } from 'vitest';
import { classifyMessage, MAX_MESSAGE_BYTES } from './wire.js';

describe('classifyMessage', () => {
  it('recognises a request, with string or integer ids', () => {
    expect(classifyMessage({ id: 1, method: 'thread/list', params: { limit: 1 } })).toEqual({
      kind: 'request',
      message: { id: 1, method: 'thread/list', params: { limit: 1 } },
    });
    expect(classifyMessage({ id: 'abc', method: 'initialize' })?.kind).toBe('request');
  });

  it('accepts and ignores a "jsonrpc" field', () => {
    expect(classifyMessage({ jsonrpc: '2.0', id: 2, method: 'thread/list' })).toEqual({
      kind: 'request',
      message: { id: 2, method: 'thread/list' },
    });
  });

  it('recognises a notification and keeps its seq', () => {
    expect(classifyMessage({ method: 'thread/started', params: { x: 1 }, seq: 12 })).toEqual({
      kind: 'notification',
      message: { method: 'thread/started', params: { x: 1 }, seq: 12 },
    });
  });

  it('recognises success and error responses, including an error with id null', () => {
    expect(classifyMessage({ id: 3, result: { ok: true } })).toEqual({
      kind: 'response',
      message: { id: 3, result: { ok: true } },
    });
    expect(classifyMessage({ id: null, error: { code: -32700, message: 'parse error' } })).toEqual({
      kind: 'response',
      message: { id: null, error: { code: -32700, message: 'parse error' } },
    });
  });

  it.each([
    ['null', null],
    ['an array', [{ id: 1, method: 'x' }]],
    ['a number', 42],
    ['a string', 'thread/list'],
    ['an empty object', {}],
    ['a non-string method', { id: 1, method: 5 }],
    ['an empty method', { id: 1, method: '' }],
    ['a boolean id', { id: true, method: 'x' }],
    ['a fractional id', { id: 1.5, method: 'x' }],
    ['an object id', { id: { a: 1 }, method: 'x' }],
    ['a success response with id null', { id: null, result: {} }],
    ['an error without a code', { id: 1, error: { message: 'x' } }],
    ['a fractional seq', { method: 'x', seq: 1.5 }],
  ])('rejects %s', (_label, value) => {
    expect(classifyMessage(value)).toBeUndefined();
  });

  it('bounds ids and method names', () => {
    expect(classifyMessage({ id: 'x'.repeat(257), method: 'a' })).toBeUndefined();
    expect(classifyMessage({ id: 1, method: 'm'.repeat(257) })).toBeUndefined();
  });

  it('caps a message at 8 MiB', () => {
    expect(MAX_MESSAGE_BYTES).toBe(8 * 1024 * 1024);
  });
});
