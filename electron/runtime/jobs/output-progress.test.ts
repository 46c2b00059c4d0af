import { describe, expect, it } from 'vitest';
import { EtaEstimator, OutputProgressParser, progressInLine } from './output-progress.js';

describe('progress in output', () => {
  it('reads percentages and counts, preferring a percentage, ignoring escapes', () => {
    expect(progressInLine('Downloading 42%')).toBe(42);
    expect(progressInLine('\x1b[32m12.5 %\x1b[0m done')).toBe(12.5);
    expect(progressInLine('[ 3 / 12 ] compiling')).toBe(25);
    expect(progressInLine('file 3/4 at 90%')).toBe(90);
    expect(progressInLine('date 2024/10/12 no')).toBeNull();
    expect(progressInLine('150% overcommit')).toBeNull();
    expect(progressInLine('plain text')).toBeNull();
  });

  it('joins a line split across chunks and takes the newest value', () => {
    const parser = new OutputProgressParser();
    expect(parser.push('step 1/')).toBeNull();
    expect(parser.push('4\nstep 2/4\r')).toBe(50);
    expect(parser.push('no progress here\n')).toBeNull();
  });

  it('estimates the time left from the running rate', () => {
    const eta = new EtaEstimator();
    expect(eta.estimate(10, 0)).toBeNull();
    expect(eta.estimate(10.5, 500)).toBeNull();
    expect(eta.estimate(30, 4000)).toBe(14_000);
    expect(eta.estimate(null, 5000)).toBeNull();
  });
});
