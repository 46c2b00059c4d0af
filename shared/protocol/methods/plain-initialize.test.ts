import { describe, expect, it } from 'vitest';
import { InitializeParams } from './initialize.js';
import { plainInitializeParams } from './plain-initialize.js';

/** A small seeded generator, so a failure names an input that can be run again. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const longText = (length: number) => 'x'.repeat(length);

/** Values for one field: valid and invalid ones around each bound the schema has. */
function fieldValue(next: () => number, kind: 'name' | 'title' | 'version' | 'method'): unknown {
  if (next() < 0.6) return 'codex-vscode';
  const choices: unknown[] = [
    'codex-vscode',
    '',
    longText(kind === 'version' ? 100 : 200),
    longText(kind === 'version' ? 101 : 201),
    longText(256),
    longText(257),
    null,
    undefined,
    5,
    { name: 'x' },
    ['x'],
    'é☃',
  ];
  return choices[Math.floor(next() * choices.length)];
}

function maybe(next: () => number, record: Record<string, unknown>, key: string, value: () => unknown): void {
  const roll = next();
  if (roll < 0.8) record[key] = value();
  else if (roll < 0.83) record[key] = undefined;
}

/** An initialize params value shaped like a client's, with every field sometimes wrong, missing or extra. */
function params(next: () => number): unknown {
  if (next() < 0.05) return [null, [], 'initialize', 3, undefined][Math.floor(next() * 5)];
  const clientInfo: Record<string, unknown> = {};
  maybe(next, clientInfo, 'name', () => fieldValue(next, 'name'));
  maybe(next, clientInfo, 'title', () => fieldValue(next, 'title'));
  maybe(next, clientInfo, 'version', () => fieldValue(next, 'version'));
  maybe(next, clientInfo, 'vendor', () => 'extra');
  const result: Record<string, unknown> = {};
  maybe(next, result, 'clientInfo', () => (next() < 0.9 ? clientInfo : fieldValue(next, 'name')));
  maybe(next, result, 'capabilities', () => {
    if (next() < 0.15) return next() < 0.5 ? null : 'all';
    const capabilities: Record<string, unknown> = {};
    maybe(next, capabilities, 'optOutNotificationMethods', () => {
      if (next() < 0.1) return null;
      if (next() < 0.05) return Array.from({ length: 257 }, () => 'turn/started');
      return Array.from({ length: Math.floor(next() * 4) }, () => fieldValue(next, 'method'));
    });
    maybe(next, capabilities, 'experimentalApi', () => true);
    return capabilities;
  });
  maybe(next, result, 'extra', () => 1);
  return result;
}

describe('initialize params recognised without zod', () => {
  it('accepts only what InitializeParams accepts, and returns what it returns', () => {
    const next = random(23);
    let accepted = 0;
    for (let i = 0; i < 10_000; i++) {
      const input = params(next);
      const plain = plainInitializeParams(input);
      if (plain === null) continue;
      accepted += 1;
      const parsed = InitializeParams.safeParse(input);
      expect(parsed.success, JSON.stringify(input)).toBe(true);
      expect(plain, JSON.stringify(input)).toStrictEqual(parsed.data);
    }
    // Not a check that accepts nothing: a good share of the inputs took the plain path.
    expect(accepted).toBeGreaterThan(1000);
  });

  it('recognises what Codex clients and Wheelhouse itself send', () => {
    const sent = [
      { clientInfo: { name: 'codex-vscode', title: 'Codex VS Code Extension', version: '0.1.0' } },
      { clientInfo: { name: 'wheelhouse-ui', title: null, version: '0.1.0' }, capabilities: { optOutNotificationMethods: ['item/agentMessage/delta'] } },
      { clientInfo: { name: 'bench', version: '0' }, capabilities: null },
      { clientInfo: { name: 'bench', version: '0' }, capabilities: { experimentalApi: true } },
    ];
    for (const input of sent) expect(plainInitializeParams(input)).toStrictEqual(InitializeParams.parse(input));
  });

  it('leaves objects that are not plain JSON to the schema', () => {
    const withProto = Object.create({ name: 'inherited' }) as Record<string, unknown>;
    withProto['version'] = '1';
    expect(plainInitializeParams({ clientInfo: withProto })).toBeNull();
    expect(plainInitializeParams({ clientInfo: { name: 'a', version: '1', title: undefined } })).toBeNull();
  });
});
