import { describe, expect, it } from 'vitest';
import { logLineText } from '../../../shared/log-text.js';
import { logLineSpans, markMatches, xtermColor } from './log-line.js';

describe('log line spans', () => {
  it('turns colour escapes into styled runs whose text is what the line shows', () => {
    const raw = '\u001b[1;31merror\u001b[0m: \u001b[38;5;208mdisk\u001b[39m \u001b[38;2;0;128;255mfull\u001b[0m\u0007';
    const spans = logLineSpans(raw);
    expect(spans.map((s) => s.text).join('')).toBe(logLineText(raw));
    expect(spans[0]).toMatchObject({ text: 'error', style: { fg: 1, bold: true } });
    expect(spans[1]).toEqual({ text: ': ', style: null });
    expect(spans[2]).toMatchObject({ text: 'disk', style: { fg: 208 } });
    expect(spans[4]).toMatchObject({ text: 'full', style: { fg: '#0080ff' } });
  });

  it('draws a rewritten progress bar in its last state and its colours', () => {
    expect(logLineSpans('\u001b[32m 10%\r 90%')).toEqual([{ text: ' 90%', style: expect.objectContaining({ fg: 2 }) }]);
  });

  it('bright colours, backgrounds and resets of one attribute', () => {
    const [bright] = logLineSpans('\u001b[94;101;4mx');
    expect(bright!.style).toMatchObject({ fg: 12, bg: 9, underline: true });
    const spans = logLineSpans('\u001b[1;3mab\u001b[22mcd\u001b[23mef');
    expect(spans.map((s) => [s.text, s.style?.bold ?? false, s.style?.italic ?? false])).toEqual([
      ['ab', true, true],
      ['cd', false, true],
      ['ef', false, false],
    ]);
  });

  it('marks every match of a search, ignoring case, across style changes', () => {
    const spans = logLineSpans('Err\u001b[31mor\u001b[0m and error');
    const marked = markMatches(spans, 'ERROR');
    expect(marked.map((s) => s.text).join('')).toBe('Error and error');
    expect(marked.filter((s) => s.mark).map((s) => s.text)).toEqual(['Err', 'or', 'error']);
    expect(marked.find((s) => s.text === 'or')!.style).toMatchObject({ fg: 1 });
    expect(markMatches(spans, 'absent')).toEqual(spans);
  });

  it('knows xterm’s colour cube and greys', () => {
    expect(xtermColor(16)).toBe('rgb(0, 0, 0)');
    expect(xtermColor(196)).toBe('rgb(255, 0, 0)');
    expect(xtermColor(244)).toBe('rgb(128, 128, 128)');
  });
});
