import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { TempDirs } from '../../../test-support/temp-dir.js';
import type { DetachedRunEvent } from './detached-run.js';
import { LogDelivery } from './log-delivery.js';

const temp = new TempDirs();
afterEach(() => temp.cleanup());

function delivery(fromOffset = 0) {
  const events: DetachedRunEvent[] = [];
  const mirrorPath = path.join(temp.make('wheelhouse-delivery-'), 'output.log');
  const log = new LogDelivery({ fromOffset, listener: (event) => events.push(event), mirrorPath });
  const outputs = () => events.flatMap((event) => (event.type === 'output' ? [[event.offset, event.data.toString('utf8')] as const] : []));
  return { log, events, outputs, mirrorPath };
}

describe('log delivery (what every follower does with the bytes it finds)', () => {
  test('bytes from two sources that overlap are delivered once, in order, and written to the copy at their offsets', () => {
    const { log, outputs, mirrorPath } = delivery();
    expect(log.accept(0, Buffer.from('one\ntwo\n'))).toBe(true);
    // A look that read from an older offset, then the stream going on.
    expect(log.accept(4, Buffer.from('two\nthree\n'))).toBe(true);
    expect(log.accept(8, Buffer.from('three\nfour\n'))).toBe(true);
    expect(outputs()).toEqual([
      [0, 'one\ntwo\n'],
      [8, 'three\n'],
      [14, 'four\n'],
    ]);
    expect(fs.readFileSync(mirrorPath, 'utf8')).toBe('one\ntwo\nthree\nfour\n');
  });

  test('bytes past what was received are refused, so the source reads again from there', () => {
    const { log, outputs } = delivery(10);
    expect(log.accept(12, Buffer.from('later'))).toBe(false);
    expect(outputs()).toEqual([]);
    expect(log.received).toBe(10);
  });

  test('a character split between two reads is delivered whole; the end comes last, after what was held', () => {
    const { log, events, outputs } = delivery();
    const text = Buffer.from('é€');
    log.accept(0, text.subarray(0, 3));
    expect(outputs()).toEqual([[0, 'é']]);
    expect(log.received).toBe(3);
    log.accept(3, text.subarray(3));
    expect(outputs()).toEqual([
      [0, 'é'],
      [2, '€'],
    ]);
    log.accept(5, Buffer.from([0xe2]));
    log.end({ state: 'ended', exit: { exitCode: 0, signal: null } });
    expect(events.at(-2)).toMatchObject({ type: 'output', offset: 5 });
    expect(events.at(-1)).toEqual({ type: 'end', end: { state: 'ended', exit: { exitCode: 0, signal: null } } });
    log.accept(6, Buffer.from('after the end'));
    expect(events.filter((event) => event.type === 'end')).toHaveLength(1);
    expect(events.at(-1)?.type).toBe('end');
  });

  test('why a run waits is told once per change, cleared once it begins; an array says it per task instead', () => {
    const { log, events } = delivery();
    log.state({ state: 'running', detail: 'waiting for the cluster' });
    log.state({ state: 'running', detail: 'waiting for the cluster' });
    log.state({ state: 'running', detail: 'waiting for the cluster (Resources)' });
    log.state({ state: 'running' });
    log.state({ state: 'running' });
    expect(events).toEqual([
      { type: 'waiting', detail: 'waiting for the cluster' },
      { type: 'waiting', detail: 'waiting for the cluster (Resources)' },
      { type: 'waiting', detail: null },
    ]);
    const array = delivery();
    array.log.state({ state: 'running', detail: 'waiting for the cluster', tasks: [{ index: 0, state: 'waiting', exitCode: null, detail: 'Resources' }] });
    expect(array.events.map((event) => event.type)).toEqual(['tasks']);
  });
});
