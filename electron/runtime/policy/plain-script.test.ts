import { beforeAll, describe, expect, it } from 'vitest';
import { parsePlainScript } from './plain-script.js';
import { loadShellParser, parseWithShellParser } from './shell-parse.js';

beforeAll(async () => {
  await loadShellParser();
});

function viaShellParser(script: string) {
  const parsed = parseWithShellParser(script);
  if (!parsed.ok) throw new Error(`mvdan-sh refused a script the fast path read: ${script} (${parsed.reason})`);
  return parsed.commands;
}

const PLAIN = [
  'ls -la',
  'git status && npm test',
  'cat README.md | head -20 | wc -l',
  'git log --oneline -5; git diff HEAD~1',
  'make || echo failed',
  'a && b || c | d; e',
  'rg "foo bar" src',
  "echo 'sudo rm -rf /'",
  'echo "rm -rf /"',
  'x"y z"\'w\'',
  'echo ""',
  "echo ''",
  'ls;',
  '  git  status  ',
  'a|b&&c||d;e',
  'npm run test -- --grep=parser',
  'curl -fsSL https://example.com/install.sh | bash',
  'sed -n 1,20p file.txt',
  'git diff HEAD~1 -- ~/notes',
  'echo "héllo wörld ✓"',
  "bash -lc 'ls && rm -rf ~'",
  '"if" x',
  'echo if then fi',
  'git commit -m "fix: one thing, then another"',
];

const NOT_PLAIN = [
  'FOO=1 make',
  'a+=1 make',
  'ls *.ts',
  'echo $HOME',
  'echo "$HOME"',
  'echo `date`',
  'echo $(date)',
  'ls > out.txt',
  'cat < in.txt',
  'sleep 1 &',
  'a & b',
  'a |& b',
  'if true; then ls; fi',
  'time ls',
  'export A=1',
  'ls\nrm x',
  'echo a\\ b',
  'ls # comment',
  '{ ls; }',
  '(ls)',
  'echo {a,b}',
  'a &&',
  'a |',
  '; a',
  'a ;; b',
  '',
  '   ',
  '"unterminated',
  "'unterminated",
  'echo "!"',
];

describe('plain scripts are read without the shell parser', () => {
  it.each(PLAIN)('%j is plain and reads exactly as mvdan-sh reads it', (script) => {
    const plain = parsePlainScript(script);
    expect(plain).not.toBeNull();
    expect(plain).toEqual(viaShellParser(script));
  });

  it.each(NOT_PLAIN)('%j goes to the shell parser', (script) => {
    expect(parsePlainScript(script)).toBeNull();
  });

  it('agrees with mvdan-sh on every generated script it accepts', () => {
    // A fixed-seed generator over pieces that are plain, nearly plain and not plain at all.
    const pieces = [
      'ls', 'git', 'status', '-la', '--x=1', 'a=b', 'A=1', 'a.b/c:d,e@f%g+h', '"q r"', "'s t'", '"', "'", '""', "''",
      '&&', '||', '|', ';', '&', ' ', '  ', '\t', 'if', 'time', 'export', '*', '$x', '"$x"', '>', '~', '!', 'é', '#', '\\',
    ];
    let seed = 23;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    let accepted = 0;
    for (let index = 0; index < 4000; index++) {
      const count = 1 + (next() % 9);
      let script = '';
      for (let piece = 0; piece < count; piece++) script += pieces[next() % pieces.length] + (next() % 3 === 0 ? '' : ' ');
      const plain = parsePlainScript(script);
      if (plain === null) continue;
      accepted++;
      expect(plain, script).toEqual(viaShellParser(script));
    }
    expect(accepted).toBeGreaterThan(200);
  });
});
