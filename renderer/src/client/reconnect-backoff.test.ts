import { describe, expect, it } from 'vitest';
import { reconnectDelayMs } from './reconnect-backoff.js';

describe('reconnect backoff', () => {
  it('starts fast, doubles, and never waits more than about ten seconds', () => {
    const mid = () => 0.5;
    expect(reconnectDelayMs(1, mid)).toBe(250);
    expect(reconnectDelayMs(2, mid)).toBe(500);
    expect(reconnectDelayMs(3, mid)).toBe(1000);
    expect(reconnectDelayMs(50, mid)).toBe(10_000);
    expect(reconnectDelayMs(50, () => 1)).toBeLessThanOrEqual(12_000);
    expect(reconnectDelayMs(1, () => 0)).toBeGreaterThanOrEqual(200);
  });
});
