import { describe, expect, it } from 'vitest';
import { sessionSourceOf } from './session-source.js';

describe('sessionSourceOf (who a new thread belongs to)', () => {
  it('counts a thread started through the desktop window as the person\'s, whatever the client says', () => {
    expect(sessionSourceOf({ carrier: 'ipc', clientInfo: null })).toBe('interactive');
    expect(sessionSourceOf({ carrier: 'ipc', clientInfo: { name: 'other', version: '1' } })).toBe('interactive');
  });

  it('counts the desktop UI over another carrier (development) as the person\'s', () => {
    expect(sessionSourceOf({ carrier: 'websocket', clientInfo: { name: 'wheelhouse-ui', version: '0.1.0' } })).toBe('interactive');
  });

  it('counts every other client, or one that never said who it is, as a program\'s', () => {
    for (const carrier of ['stdio', 'websocket', 'http', 'in-process'] as const) {
      expect(sessionSourceOf({ carrier, clientInfo: { name: 'codex-sdk', version: '1' } })).toBe('api');
      expect(sessionSourceOf({ carrier, clientInfo: null })).toBe('api');
    }
  });
});
