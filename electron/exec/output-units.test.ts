import fs from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TempDirs } from '../../test-support/temp-dir.js';
import { boundedView, HeadTailBuffer } from './model-view.js';
import { OutputLog } from './output-log.js';
import { OutputPipeline, type OutputLimits } from './output-pipeline.js';
import { TerminalProgressParser } from './terminal-progress.js';
import { DEFAULT_OUTPUT_LIMITS } from './supervisor.js';
import type { ProcessEvent } from './types.js';

const temp = new TempDirs();
afterEach(() => temp.cleanup());

describe('terminal progress (OSC 9;4)', () => {
  it('parses every state with BEL or ST and ignores malformed sequences', () => {
    const parser = new TerminalProgressParser();
    const text = 'a\x1b]9;4;1;50\x07b\x1b]9;4;4;3\x1b\\c\x1b]9;4;9;1\x07\x1b]9;4;1;250\x07\x1b]9;4;2\x07\x1b]9;4;0;0\x07\x1b]9;4;3;0\x07';
    expect(parser.push(Buffer.from(text))).toEqual([
      { state: 'normal', percent: 50 },
      { state: 'paused', percent: 3 },
      { state: 'normal', percent: 100 },
      { state: 'error', percent: null },
      { state: 'hidden', percent: null },
      { state: 'indeterminate', percent: null },
    ]);
  });

  it('finds a sequence split at every possible byte between two reads', () => {
    const sequence = Buffer.from('xx\x1b]9;4;1;73\x1b\\yy');
    for (let cut = 1; cut < sequence.length; cut += 1) {
      const parser = new TerminalProgressParser();
      const found = [...parser.push(sequence.subarray(0, cut)), ...parser.push(sequence.subarray(cut))];
      expect(found, `cut at ${cut}`).toEqual([{ state: 'normal', percent: 73 }]);
    }
  });

  it('does not hold on to a stray prefix that never ends', () => {
    const parser = new TerminalProgressParser();
    expect(parser.push(Buffer.from(`\x1b]9;4;${'1'.repeat(40)}`))).toEqual([]);
    expect(parser.push(Buffer.from('\x1b]9;4;1;5\x07'))).toEqual([{ state: 'normal', percent: 5 }]);
  });
});

describe('model view', () => {
  it('keeps everything under the bound and head + tail with the omitted count over it', () => {
    const small = new HeadTailBuffer(10, 10);
    small.push(Buffer.from('hello '));
    small.push(Buffer.from('world'));
    expect(small.text()).toBe('hello world');
    const big = new HeadTailBuffer(4, 4);
    for (const piece of ['abc', 'def', 'ghi', 'jkl', 'mno']) big.push(Buffer.from(piece));
    expect(big.text()).toBe('abcd\n…7 bytes omitted…\nlmno');
    expect(big.totalBytes).toBe(15);
  });

  it('never cuts a UTF-8 character in half', () => {
    const view = boundedView('é'.repeat(100), 51);
    expect(view).not.toContain('\ufffd');
    expect(view).toMatch(/^é+\n…\d+ bytes omitted…\né+$/);
    expect(boundedView('short', 100)).toBe('short');
  });
});

describe('output pipeline', () => {
  function pipeline(limits: Partial<OutputLimits> = {}) {
    const log = OutputLog.create(temp.make(), 'unit');
    const pauses: boolean[] = [];
    const output = new OutputPipeline({ ...DEFAULT_OUTPUT_LIMITS, ...limits }, log, (paused) => pauses.push(paused));
    const events: ProcessEvent[] = [];
    return { output, log, pauses, events };
  }

  it('sends the first read after a quiet spell at once, batches what follows by time, and large output by size', () => {
    // A driven clock: the batch's time and the quiet spell pass when the test says so.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let clock = performance.now();
    const now = vi.spyOn(performance, 'now').mockImplementation(() => clock);
    const advance = (ms: number) => {
      clock += ms;
      vi.advanceTimersByTime(ms);
    };
    try {
      const { output, events, log } = pipeline();
      output.subscribe((event) => events.push(event));
      for (let i = 0; i < 1000; i += 1) output.push('pty', Buffer.from(`line ${i}\n`));
      // The first read (say, a keystroke's echo) is not held back; the other 999 wait for the batch.
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ type: 'output', offset: 0, data: Buffer.from('line 0\n') });
      advance(DEFAULT_OUTPUT_LIMITS.maxDelayMs - 1);
      expect(events).toHaveLength(1);
      advance(1);
      expect(events).toHaveLength(2);
      // A quiet spell as long as the batch time: the next read goes at once again.
      advance(DEFAULT_OUTPUT_LIMITS.maxDelayMs);
      const chunk = Buffer.alloc(1024, 'x');
      output.push('pty', chunk);
      expect(events).toHaveLength(3);
      for (let i = 0; i < 100; i += 1) output.push('pty', chunk);
      expect(events).toHaveLength(3 + 1);
      output.close();
      const outputs = events.flatMap((event) => (event.type === 'output' ? [event.data.length] : []));
      expect(outputs.slice(2)).toEqual([1024, 64 * 1024, 36 * 1024]);
      expect(fs.statSync(log.path).size).toBe(outputs.reduce((a, b) => a + b, 0));
    } finally {
      now.mockRestore();
      vi.useRealTimers();
    }
  });

  it('pauses the source above the high-water mark and resumes at the low-water mark, per lagging subscriber', () => {
    const { output, pauses } = pipeline({ highWaterBytes: 100, lowWaterBytes: 40, maxBatchBytes: 50 });
    const slow = output.subscribe(() => {}, { flowControl: true });
    output.subscribe(() => {}); // not flow-controlled: never holds output back
    output.push('pty', Buffer.alloc(60));
    output.push('pty', Buffer.alloc(60));
    expect(pauses).toEqual([true]);
    slow.ack(50);
    expect(pauses).toEqual([true]);
    slow.ack(30);
    expect(pauses).toEqual([true, false]);
    expect(output.maxUnackedBytes).toBe(120);
    output.push('pty', Buffer.alloc(200));
    expect(pauses).toEqual([true, false, true]);
    slow.dispose();
    expect(pauses).toEqual([true, false, true, false]);
    output.close();
  });
});
