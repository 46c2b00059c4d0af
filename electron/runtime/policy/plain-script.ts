import type { ShellWord, SimpleCommand } from './shell-parse.js';

/**
 * The commands of a plain script — words joined by `&&`, `||`, `|` and `;` —
 * read without the shell parser. Most commands an agent runs are plain
 * (`ls -la`, `git status && npm test`, `rg "a b" src | head`); judging them
 * this way spares loading mvdan-sh (about 22 MB of memory) for a session
 * that never runs anything else. Anything outside this small grammar answers
 * null and goes to the real parser: expansions, globs, redirections,
 * escapes, assignments, keywords, comments, newlines, background jobs.
 * A test holds the result identical to mvdan-sh's for every plain script.
 */

/** Characters an unquoted plain word may hold (a `~` stays as written, as mvdan-sh leaves it). */
const UNQUOTED = /^[A-Za-z0-9_./:,@%+=~-]+/;
/** Single quotes keep everything literally but a newline (kept out so a script stays one line). */
const SINGLE_QUOTED = /^'([^'\n]*)'/;
/** Double quotes without anything that expands or escapes inside them. */
const DOUBLE_QUOTED = /^"([^"$`\\!\n]*)"/;
const OPERATOR = /^(&&|\|\||\||;)/;
const BLANKS = /^[ \t]+/;

/**
 * Words that are not plain commands in first position: bash's reserved words
 * and the builtins mvdan-sh reads as clauses of their own (declarations, `let`, `time`).
 */
const NOT_A_PLAIN_COMMAND = new Set([
  'if', 'then', 'elif', 'else', 'fi', 'for', 'in', 'do', 'done', 'while', 'until', 'case', 'esac',
  'select', 'function', 'time', 'coproc', 'declare', 'local', 'export', 'readonly', 'typeset', 'nameref', 'let',
]);

interface Pending {
  words: ShellWord[];
  /** The first word as written, to tell `FOO=1 make` (an assignment) and `if` (a keyword) apart. */
  firstRaw: string | null;
}

/** The script's simple commands as mvdan-sh would find them, or null when it is not plain. */
export function parsePlainScript(script: string): readonly SimpleCommand[] | null {
  const commands: SimpleCommand[] = [];
  let pipeline = 0;
  let stages: Pending[] = [];
  let current: Pending = { words: [], firstRaw: null };
  let rest = script.replace(/^[ \t]+/, '');

  const endStage = (): boolean => {
    if (current.words.length === 0) return false;
    const first = current.firstRaw ?? '';
    if (NOT_A_PLAIN_COMMAND.has(first) || /^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(first)) return false;
    stages.push(current);
    current = { words: [], firstRaw: null };
    return true;
  };
  const endPipeline = () => {
    stages.forEach((stage, position) =>
      commands.push({ words: stage.words, assignments: [], redirects: [], pipeline, position, substitutionOf: null }),
    );
    pipeline++;
    stages = [];
  };

  while (rest.length > 0) {
    const operator = OPERATOR.exec(rest);
    if (operator) {
      if (!endStage()) return null;
      if (operator[1] !== '|') endPipeline();
      rest = rest.slice(operator[0].length).replace(BLANKS, '');
      // `a;` ends the script cleanly; `a &&` or `a |` with nothing after them does not parse.
      if (rest.length === 0 && operator[1] !== ';') return null;
      continue;
    }
    const word = readWord(rest);
    if (!word) return null;
    current.words.push({ text: word.text, kind: 'literal' });
    current.firstRaw ??= word.raw;
    rest = rest.slice(word.raw.length);
    const blanks = BLANKS.exec(rest);
    if (blanks) rest = rest.slice(blanks[0].length);
    else if (rest.length > 0 && !OPERATOR.test(rest)) return null;
  }
  if (current.words.length > 0 && !endStage()) return null;
  if (stages.length > 0) endPipeline();
  return commands.length > 0 ? commands : null;
}

/** One word made of unquoted, single- and double-quoted pieces side by side (`a"b c"'d'`). */
function readWord(input: string): { raw: string; text: string } | null {
  let raw = '';
  let text = '';
  for (;;) {
    const rest = input.slice(raw.length);
    const piece = UNQUOTED.exec(rest) ?? SINGLE_QUOTED.exec(rest) ?? DOUBLE_QUOTED.exec(rest);
    if (!piece) break;
    raw += piece[0];
    text += piece[1] ?? piece[0];
  }
  return raw.length > 0 ? { raw, text } : null;
}
