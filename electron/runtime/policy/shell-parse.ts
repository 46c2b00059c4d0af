import type Sh from 'mvdan-sh';
import { goString, isGoNode, goList, goTypeName, type GoNode } from './gopherjs-values.js';
import { parsePlainScript } from './plain-script.js';

/**
 * Turns a shell script into the simple commands it would run, with a real
 * shell parser (mvdan/sh, the parser behind shfmt). Every command of
 * `a && b | c; d`, of subshells, `{ …; }`, `$(…)` and backticks is found;
 * anything this analysis does not understand makes the whole script
 * `unsupported`, which the policy turns into "needs approval".
 */

/** One word of a command as the policy sees it. */
export interface ShellWord {
  /** The text after quote removal; for a dynamic word, the source as written. */
  readonly text: string;
  /**
   * `literal`: the shell passes exactly `text`.
   * `glob`: unquoted `*`, `?` or `[` — the shell may replace it with file names.
   * `dynamic`: contains `$VAR`, `$(…)`, `$((…))`, brace expansion or `$'…'`; its value is unknown before running.
   */
  readonly kind: 'literal' | 'glob' | 'dynamic';
}

export interface ShellRedirect {
  /** `>`, `>>`, `<`, `2>&1`-style dups are reported with their operator (`>&`). */
  readonly operator: string;
  readonly target: ShellWord | null;
}

export interface SimpleCommand {
  readonly words: readonly ShellWord[];
  /** `NAME=value` assignments before the command (`FOO=1 make`). */
  readonly assignments: readonly string[];
  readonly redirects: readonly ShellRedirect[];
  /** Commands joined by `|` share a pipeline id; `position` is the stage index. */
  readonly pipeline: number;
  readonly position: number;
  /** Set when this command runs inside `$(…)` or backticks of another word. */
  readonly substitutionOf: number | null;
}

export type ParsedScript =
  | { readonly ok: true; readonly commands: readonly SimpleCommand[] }
  | { readonly ok: false; readonly reason: string };

type ShellModule = typeof Sh;

let shellModule: ShellModule | null = null;
/** One parser, reused: parsing is synchronous and never re-entered while a tree is read. */
let parser: Sh.Parser | null = null;

/**
 * Thrown by `parseShellScript` for a script that needs the full parser before
 * it is loaded: the caller loads it (`loadShellParser`) and asks again.
 */
export class ShellParserNotLoaded extends Error {
  constructor() {
    super('the shell parser is not loaded; call loadShellParser() first');
  }
}

/**
 * Loads the parser (1.5 MB of JavaScript, about 22 MB of memory) once, on the
 * first script that is not plain (see plain-script.ts).
 */
export async function loadShellParser(): Promise<void> {
  if (shellModule) return;
  const imported = (await import('mvdan-sh')) as unknown as { default?: ShellModule } & ShellModule;
  shellModule = imported.default ?? imported;
}

/** Whether the full parser has been loaded (a session of plain commands never loads it). */
export function isShellParserLoaded(): boolean {
  return shellModule !== null;
}

// Operator token numbers of mvdan-sh 0.10.1 (pinned in package.json); the tests parse
// samples of each so an upgrade that renumbers them fails loudly.
const REDIRECT_OPERATORS: Record<number, string> = {
  54: '>', 55: '>>', 56: '<', 57: '<>', 58: '<&', 59: '>&', 60: '>|',
  61: '<<', 62: '<<-', 63: '<<<', 64: '&>', 65: '&>>',
};
const BINARY_OPERATORS: Record<number, string> = { 10: '&&', 11: '||', 12: '|', 13: '|&' };

class Unsupported extends Error {}

export function parseShellScript(script: string): ParsedScript {
  const plain = parsePlainScript(script);
  if (plain) return { ok: true, commands: plain };
  return parseWithShellParser(script);
}

/** The script's commands as mvdan-sh finds them (also what plain-script.ts is tested against). */
export function parseWithShellParser(script: string): ParsedScript {
  if (!shellModule) throw new ShellParserNotLoaded();
  const syntax = shellModule.syntax;
  let file: Sh.File;
  try {
    parser ??= syntax.NewParser(syntax.Variant(syntax.LangBash));
    file = parser.Parse(script, '');
  } catch (error) {
    const described = error as { Error?: () => string };
    const message = typeof described.Error === 'function' ? described.Error() : String(error);
    return { ok: false, reason: `the shell script does not parse: ${message}` };
  }
  // The tree is read through GopherJS's own objects: the JS wrappers (`file.Stmts`, …)
  // convert whole subtrees on every property access, which made a decision ~50x slower.
  const root = (file as unknown as { __internal_object__: GoNode }).__internal_object__;
  const collector = new CommandCollector();
  try {
    collector.statements(goList(root['Stmts']), null);
  } catch (error) {
    if (error instanceof Unsupported) return { ok: false, reason: error.message };
    if (error instanceof RangeError) return { ok: false, reason: 'the script nests too deeply to analyse' };
    throw error;
  }
  return { ok: true, commands: collector.commands };
}

class CommandCollector {
  readonly commands: SimpleCommand[] = [];
  private nextPipeline = 0;

  statements(statements: readonly GoNode[], substitutionOf: number | null): void {
    for (const statement of statements) this.pipelineOf(statement, substitutionOf);
  }

  /** A statement: `a && b` and `a || b` split into pipelines; `a | b | c` is one pipeline. */
  private pipelineOf(statement: GoNode, substitutionOf: number | null): void {
    if (statement['Coprocess'] === true) throw new Unsupported('the script uses `coproc`, which the policy does not analyse');
    const binary = this.binaryOf(statement);
    if (binary && (binary.operator === '&&' || binary.operator === '||')) {
      this.recordRedirectsOnly(statement, substitutionOf);
      this.pipelineOf(binary.node['X'] as GoNode, substitutionOf);
      this.pipelineOf(binary.node['Y'] as GoNode, substitutionOf);
      return;
    }
    const stages: GoNode[] = [];
    this.flattenPipes(statement, stages, substitutionOf);
    const pipeline = this.nextPipeline++;
    stages.forEach((stage, position) => this.command(stage, pipeline, position, substitutionOf));
  }

  private binaryOf(statement: GoNode): { node: GoNode; operator: string } | null {
    const command = statement['Cmd'];
    if (!isGoNode(command) || goTypeName(command) !== 'BinaryCmd') return null;
    const operator = BINARY_OPERATORS[command['Op'] as number];
    if (!operator) throw new Unsupported(`the script uses a shell operator (${String(command['Op'])}) the policy does not analyse`);
    return { node: command, operator };
  }

  private flattenPipes(statement: GoNode, stages: GoNode[], substitutionOf: number | null): void {
    const binary = this.binaryOf(statement);
    if (binary && (binary.operator === '|' || binary.operator === '|&')) {
      this.recordRedirectsOnly(statement, substitutionOf);
      this.flattenPipes(binary.node['X'] as GoNode, stages, substitutionOf);
      this.flattenPipes(binary.node['Y'] as GoNode, stages, substitutionOf);
      return;
    }
    stages.push(statement);
  }

  /** Redirections on a compound statement still write files: keep them as a command with no words. */
  private recordRedirectsOnly(statement: GoNode, substitutionOf: number | null): void {
    const redirs = goList(statement['Redirs']);
    if (redirs.length === 0) return;
    const redirects = this.redirects(redirs, substitutionOf);
    this.commands.push({ words: [], assignments: [], redirects, pipeline: this.nextPipeline++, position: 0, substitutionOf });
  }

  private command(statement: GoNode, pipeline: number, position: number, substitutionOf: number | null): void {
    const command = statement['Cmd'];
    const redirects = this.redirects(goList(statement['Redirs']), substitutionOf);
    if (!isGoNode(command)) {
      // Only redirections (`> file`): truncates or creates a file without running anything.
      this.commands.push({ words: [], assignments: [], redirects, pipeline, position, substitutionOf });
      return;
    }
    const type = goTypeName(command);
    if (type === 'Subshell' || type === 'Block') {
      this.statements(goList(command['Stmts']), substitutionOf);
      // `(a; b) > file` writes the file: record it as a command with no words.
      if (redirects.length > 0) this.commands.push({ words: [], assignments: [], redirects, pipeline, position, substitutionOf });
      return;
    }
    if (type === 'BinaryCmd') {
      this.pipelineOf(statement, substitutionOf);
      return;
    }
    if (type !== 'CallExpr') {
      throw new Unsupported(`the script uses ${describeConstruct(type)}, which the policy does not analyse`);
    }
    const index = this.commands.length;
    // Reserve the slot first so commands inside `$(…)` of this one point at it.
    this.commands.push(null as unknown as SimpleCommand);
    const assignments = goList(command['Assigns']).map((assign) => this.assignment(assign, index));
    const words = goList(command['Args']).map((word) => this.word(word, index));
    this.commands[index] = { words, assignments, redirects, pipeline, position, substitutionOf };
  }

  private assignment(assign: GoNode, owner: number): string {
    if (isGoNode(assign['Array']) || isGoNode(assign['Index'])) {
      throw new Unsupported('the script assigns an array, which the policy does not analyse');
    }
    const name = isGoNode(assign['Name']) ? goString(assign['Name']['Value']) : '';
    const value = isGoNode(assign['Value']) ? this.word(assign['Value'], owner).text : '';
    return `${name}${assign['Append'] === true ? '+=' : '='}${value}`;
  }

  private redirects(redirects: readonly GoNode[], owner: number | null): ShellRedirect[] {
    return redirects.map((redirect) => {
      const operator = REDIRECT_OPERATORS[redirect['Op'] as number];
      if (!operator) throw new Unsupported(`the script uses a redirection the policy does not know (${String(redirect['Op'])})`);
      // A heredoc body is data on stdin, but `$(…)` inside an unquoted one still runs.
      if (isGoNode(redirect['Hdoc'])) this.word(redirect['Hdoc'], owner);
      const target = isGoNode(redirect['Word']) ? this.word(redirect['Word'], owner) : null;
      const fd = isGoNode(redirect['N']) ? goString(redirect['N']['Value']) : '';
      return { operator: `${fd}${operator}`, target };
    });
  }

  /** Resolves a word's text and kind; runs of `$(…)` inside it become commands of their own. */
  private word(word: GoNode, owner: number | null): ShellWord {
    let kind: ShellWord['kind'] = 'literal';
    let text = '';
    const raise = (to: ShellWord['kind']) => {
      if (to === 'dynamic' || (to === 'glob' && kind === 'literal')) kind = to;
    };
    for (const part of goList(word['Parts'])) {
      const type = goTypeName(part);
      if (type === 'Lit') {
        const value = goString(part['Value']);
        if (/[*?[]/.test(value)) raise('glob');
        if (/\{[^}]*(,|\.\.)[^}]*\}/.test(value)) raise('dynamic');
        text += unescapeUnquoted(value);
      } else if (type === 'SglQuoted') {
        const value = goString(part['Value']);
        if (part['Dollar'] === true && value.includes('\\')) raise('dynamic');
        text += value;
      } else if (type === 'DblQuoted') {
        for (const inner of goList(part['Parts'])) {
          if (goTypeName(inner) === 'Lit') text += unescapeDoubleQuoted(goString(inner['Value']));
          else {
            raise('dynamic');
            text += this.dynamicPart(inner, owner);
          }
        }
      } else {
        raise('dynamic');
        text += this.dynamicPart(part, owner);
      }
    }
    return { text, kind };
  }

  /** Walks an expansion, collecting the commands of nested `$(…)`; refuses process substitution. */
  private dynamicPart(part: GoNode, owner: number | null): string {
    this.walk(part, owner);
    const type = goTypeName(part);
    if (type === 'CmdSubst') return '$(…)';
    if (type === 'ParamExp' && isGoNode(part['Param'])) return `$${goString(part['Param']['Value'])}`;
    return '$…';
  }

  private walk(node: GoNode, owner: number | null): void {
    const type = goTypeName(node);
    if (type === 'CmdSubst') {
      this.statements(goList(node['Stmts']), owner);
      return;
    }
    if (type === 'ProcSubst') {
      throw new Unsupported('the script uses process substitution (<(…) or >(…)), which the policy does not analyse');
    }
    for (const key of Object.keys(node)) {
      if (key === '$val') continue;
      const value = node[key];
      if (isGoNode(value)) this.walk(value, owner);
      else if (value && typeof value === 'object' && '$array' in value) {
        for (const item of goList(value)) if (isGoNode(item)) this.walk(item, owner);
      }
    }
  }
}

function describeConstruct(type: string): string {
  switch (type) {
    case 'IfClause':
    case 'WhileClause':
    case 'ForClause':
    case 'CaseClause':
      return 'shell control flow (if/while/for/case)';
    case 'FuncDecl':
      return 'a function definition';
    case 'TestClause':
      return '`[[ … ]]`';
    case 'ArithmCmd':
    case 'LetClause':
      return 'arithmetic commands';
    case 'DeclClause':
      return 'declare/local/export/readonly';
    case 'TimeClause':
      return '`time`';
    default:
      return type;
  }
}

/** Outside quotes a backslash keeps the next character literally; backslash-newline vanishes. */
function unescapeUnquoted(value: string): string {
  return value.replace(/\\(\n|.)/g, (_, next: string) => (next === '\n' ? '' : next));
}

/** Inside double quotes a backslash only escapes `$`, `` ` ``, `"`, `\` and newline. */
function unescapeDoubleQuoted(value: string): string {
  return value.replace(/\\([$`"\\\n])/g, (_, next: string) => (next === '\n' ? '' : next));
}
