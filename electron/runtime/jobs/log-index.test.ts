import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LINES_PER_CHECKPOINT, LogLineIndex } from './log-index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function logFile(text: string | Buffer): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wheelhouse-log-index-'));
  dirs.push(dir);
  const file = path.join(dir, 'run.log');
  fs.writeFileSync(file, text);
  return file;
}

async function indexed(file: string): Promise<{ index: LogLineIndex; size: number }> {
  const index = new LogLineIndex(file);
  const size = fs.statSync(file).size;
  await index.catchUp(size);
  return { index, size };
}

const numbered = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `line ${from + i}`);

describe('log line index', () => {
  it('reads any range by line number, across checkpoints and at the end', async () => {
    const count = LINES_PER_CHECKPOINT * 5 + 17;
    const { index, size } = await indexed(logFile(`${numbered(0, count).join('\n')}\n`));
    expect(index.lineCount(size)).toBe(count);
    expect((await index.read(0, 3, size, 1000, 1e6)).lines).toEqual(numbered(0, 3));
    const middle = LINES_PER_CHECKPOINT * 3 - 2;
    expect((await index.read(middle, 5, size, 1000, 1e6)).lines).toEqual(numbered(middle, middle + 5));
    expect((await index.read(count - 2, 10, size, 1000, 1e6)).lines).toEqual(numbered(count - 2, count));
    expect((await index.read(count, 10, size, 1000, 1e6)).lines).toEqual([]);
  });

  it('counts an unfinished last line and follows the log as it grows, reading only the new bytes', async () => {
    const file = logFile('a\nb\npartial');
    const index = new LogLineIndex(file);
    let size = fs.statSync(file).size;
    await index.catchUp(size);
    expect(index.lineCount(size)).toBe(3);
    expect((await index.read(2, 1, size, 1000, 1e6)).lines).toEqual(['partial']);
    fs.appendFileSync(file, ' and done\nnext\n');
    size = fs.statSync(file).size;
    await index.catchUp(size);
    expect(index.lineCount(size)).toBe(4);
    expect((await index.read(1, 10, size, 1000, 1e6)).lines).toEqual(['b', 'partial and done', 'next']);
  });

  it('indexes one pass at a time however many readers wait, and refuses a log that shrank', async () => {
    const file = logFile(`${numbered(0, 5000).join('\n')}\n`);
    const index = new LogLineIndex(file);
    const size = fs.statSync(file).size;
    await Promise.all([index.catchUp(size), index.catchUp(size), index.catchUp(size)]);
    expect(index.lineCount(size)).toBe(5000);
    await expect(index.catchUp(10)).rejects.toThrow(/shrank/);
  });

  it('cuts a long line at the byte cap on a character boundary and says which it cut', async () => {
    const long = 'é'.repeat(3000);
    const { index, size } = await indexed(logFile(`short\n${long}\nafter\n`));
    const { lines, clipped } = await index.read(0, 3, size, 1001, 1e6);
    expect(lines[0]).toBe('short');
    expect(lines[1]).toBe('é'.repeat(500));
    expect(lines[2]).toBe('after');
    expect(clipped).toEqual([1]);
  });

  it('reads a line longer than its read buffer whole', async () => {
    const long = 'x'.repeat(3 * 1024 * 1024);
    const { index, size } = await indexed(logFile(`first\n${long}\nlast\n`));
    const { lines } = await index.read(1, 2, size, 4 * 1024 * 1024, 8 * 1024 * 1024);
    expect(lines[0]!.length).toBe(long.length);
    expect(lines[1]).toBe('last');
  });

  it('stops once the byte budget is reached, and always returns one line', async () => {
    const { index, size } = await indexed(logFile(`${numbered(0, 100).join('\n')}\n`));
    // Six bytes a line: the line that reaches the budget is the last.
    expect((await index.read(0, 100, size, 1000, 20)).lines).toEqual(['line 0', 'line 1', 'line 2', 'line 3']);
    expect((await index.read(5, 100, size, 1000, 1)).lines).toEqual(['line 5']);
  });

  it('searches what lines show, ignoring case, colours and rewritten progress', async () => {
    const text = [
      'Compiling alpha',
      '\u001b[31mERROR\u001b[0m: beta failed',
      'progress 10%\rprogress 100% done',
      'Er\u001b[1mror\u001b[0m split by a colour',
      'all fine\r',
      ...numbered(0, LINES_PER_CHECKPOINT * 2),
      'an error at the end',
    ].join('\n');
    const { index, size } = await indexed(logFile(`${text}\n`));
    expect((await index.search('error', 0, 100, size)).lines).toEqual([1, 3, 5 + LINES_PER_CHECKPOINT * 2]);
    expect((await index.search('10%', 0, 100, size)).lines).toEqual([]);
    expect((await index.search('100% DONE', 0, 100, size)).lines).toEqual([2]);
    expect((await index.search('error', 2, 100, size)).lines).toEqual([3, 5 + LINES_PER_CHECKPOINT * 2]);
    expect((await index.search('line 300', 0, 100, size)).lines).toEqual([305]);
  });

  it('searches terminal output (CRLF endings) as plain lines', async () => {
    const { index, size } = await indexed(logFile('compiling\r\nan Error here\r\n\u001b[31mred error\u001b[0m\r\ndone\r\n'));
    expect((await index.search('error', 0, 100, size)).lines).toEqual([1, 2]);
    expect((await index.read(0, 2, size, 1000, 1e6)).lines).toEqual(['compiling', 'an Error here']);
  });

  it('stops at maxMatches and says where to go on from', async () => {
    const { index, size } = await indexed(logFile(`${numbered(0, 1000).join('\n')}\n`));
    const first = await index.search('line 1', 0, 5, size);
    expect(first).toEqual({ lines: [1, 10, 11, 12, 13], searchedTo: 14, truncated: true });
    const rest = await index.search('line 1', first.searchedTo, 1000, size);
    expect(rest.truncated).toBe(false);
    expect(rest.searchedTo).toBe(1000);
    expect([...first.lines, ...rest.lines]).toHaveLength(1 + 10 + 100);
  });

  it('searches a slice of lines, so a client can search a long log piece by piece', async () => {
    const count = LINES_PER_CHECKPOINT * 3;
    const { index, size } = await indexed(logFile(`${numbered(0, count).join('\n')}\n`));
    const first = await index.search('line 3', 0, 1000, size, 100);
    expect(first).toEqual({ lines: [3, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39], searchedTo: 100, truncated: false });
    const middle = await index.search('line 3', 300, 1000, size, 301);
    expect(middle).toEqual({ lines: [300], searchedTo: 301, truncated: false });
    expect((await index.search('line', count - 2, 1000, size, count + 50)).searchedTo).toBe(count);
  });

  it('leaves an unfinished last line out of a search until it ends', async () => {
    const file = logFile('done\nstill writ');
    const index = new LogLineIndex(file);
    let size = fs.statSync(file).size;
    await index.catchUp(size);
    expect(await index.search('writ', 0, 10, size)).toEqual({ lines: [], searchedTo: 1, truncated: false });
    fs.appendFileSync(file, 'ing\n');
    size = fs.statSync(file).size;
    await index.catchUp(size);
    expect((await index.search('writing', 1, 10, size)).lines).toEqual([1]);
  });
});
