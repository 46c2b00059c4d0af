import { describe, expect, it } from 'vitest';
import { stripAnsi } from './ansi.js';

describe('stripAnsi', () => {
  it('removes colours, cursor moves and OSC titles and links, keeps the text', () => {
    expect(stripAnsi('\u001b[1;32mok\u001b[0m done')).toBe('ok done');
    expect(stripAnsi('\u001b]0;title\u0007after')).toBe('after');
    expect(stripAnsi('\u001b]8;;https://x.test\u001b\\link\u001b]8;;\u001b\\')).toBe('link');
    expect(stripAnsi('\u001b[2K\u001b[1Gline')).toBe('line');
  });

  it('keeps the last rewrite of a line and turns CRLF into LF', () => {
    expect(stripAnsi('10%\r50%\r100%\nnext\r\n')).toBe('100%\nnext\n');
  });
});
