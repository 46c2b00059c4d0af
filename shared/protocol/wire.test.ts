import { describe, expect, it } from 'vitest';
import { MAX_MESSAGE_BYTES } from './limits.js';
import { classifyMessage } from './wire.js';
import { plainRequestMessage } from './plain-json.js';

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

describe('requests recognised without zod', () => {
  it('accept only what RequestMessage accepts, and return what it returns', () => {
    const ids: unknown[] = [1, 0, -5, 2 ** 53, 1.5, Number.NaN, 'a', '', 'x'.repeat(256), 'x'.repeat(257), null, undefined, {}, []];
    const methods: unknown[] = ['initialize', '', 'm'.repeat(256), 'm'.repeat(257), 5, null, undefined];
    const params: unknown[] = [undefined, null, {}, [], 'p', { clientInfo: { name: 'x' } }];
    let accepted = 0;
    for (const id of ids) {
      for (const method of methods) {
        for (const param of params) {
          for (const extra of [{}, { jsonrpc: '2.0' }]) {
            const value: Record<string, unknown> = { ...extra };
            if (id !== undefined) value['id'] = id;
            if (method !== undefined) value['method'] = method;
            if (param !== undefined) value['params'] = param;
            const plain = plainRequestMessage(value);
            if (plain === null) continue;
            accepted += 1;
            expect(classifyMessage(value), JSON.stringify(value)).toStrictEqual({ kind: 'request', message: plain });
          }
        }
      }
    }
    expect(accepted).toBeGreaterThan(50);
    expect(plainRequestMessage({ id: 1, method: 'thread/list', params: undefined })).toBeNull();
    expect(plainRequestMessage(Object.assign(Object.create({ id: 1 }) as object, { method: 'm' }))).toBeNull();
  });
});
