import type Sh from 'mvdan-sh';

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

/** Loads the parser (about 1.5 MB of JavaScript) once; policies call this before evaluating. */
export async function loadShellParser(): Promise<void> {
  if (shellModule) return;
  const imported = (await import('mvdan-sh')) as unknown as { default?: ShellModule } & ShellModule;
  shellModule = imported.default ?? imported;
}

// Operator token numbers of mvdan-sh 0.10.1 (pinned in package.json); a test parses
// samples of each so an upgrade that renumbers them fails loudly.
const REDIRECT_OPERATORS: Record<number, string> = {
  54: '>', 55: '>>', 56: '<', 57: '<>', 58: '<&', 59: '>&', 60: '>|',
  61: '<<', 62: '<<-', 63: '<<<', 64: '&>', 65: '&>>',
};
const BINARY_OPERATORS: Record<number, string> = { 10: '&&', 11: '||', 12: '|', 13: '|&' };

class Unsupported extends Error {}

export function parseShellScript(script: string): ParsedScript {
  if (!shellModule) throw new Error('the shell parser is not loaded; call loadShellParser() first');
  const syntax = shellModule.syntax;
  let file: Sh.File;
  try {
    file = syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(script, '');
  } catch (error) {
    const described = error as { Error?: () => string };
    const message = typeof described.Error === 'function' ? described.Error() : String(error);
    return { ok: false, reason: `the shell script does not parse: ${message}` };
  }
  const collector = new CommandCollector(syntax);
  try {
    collector.statements(file.Stmts, null);
  } catch (error) {
    if (error instanceof Unsupported) return { ok: false, reason: error.message };
    throw error;
  }
  return { ok: true, commands: collector.commands };
}

class CommandCollector {
  readonly commands: SimpleCommand[] = [];
  private nextPipeline = 0;

  constructor(private readonly syntax: ShellModule['syntax']) {}

  statements(statements: readonly (Sh.Stmt | null)[], substitutionOf: number | null): void {
    for (const statement of statements) {
      if (statement) this.pipelineOf(statement, substitutionOf);
    }
  }

  /** A statement: `a && b` and `a || b` split into pipelines; `a | b | c` is one pipeline. */
  private pipelineOf(statement: Sh.Stmt, substitutionOf: number | null): void {
    if (statement.Coprocess) throw new Unsupported('the script uses `coproc`, which the policy does not analyse');
    const binary = this.binaryOf(statement);
    if (binary && (binary.operator === '&&' || binary.operator === '||')) {
      this.recordRedirectsOnly(statement, substitutionOf);
      this.pipelineOf(binary.node.X!, substitutionOf);
      this.pipelineOf(binary.node.Y!, substitutionOf);
      return;
    }
    const stages: Sh.Stmt[] = [];
    this.flattenPipes(statement, stages, substitutionOf);
    const pipeline = this.nextPipeline++;
    stages.forEach((stage, position) => this.command(stage, pipeline, position, substitutionOf));
  }

  private binaryOf(statement: Sh.Stmt): { node: Sh.BinaryCmd; operator: string } | null {
    const command = statement.Cmd;
    if (!command || this.syntax.NodeType(command) !== 'BinaryCmd') return null;
    const node = command as unknown as Sh.BinaryCmd;
    const operator = BINARY_OPERATORS[node.Op as number];
    if (!operator) throw new Unsupported(`the script uses a shell operator (${String(node.Op)}) the policy does not analyse`);
    return { node, operator };
  }

  private flattenPipes(statement: Sh.Stmt, stages: Sh.Stmt[], substitutionOf: number | null): void {
    const binary = this.binaryOf(statement);
    if (binary && (binary.operator === '|' || binary.operator === '|&')) {
      this.recordRedirectsOnly(statement, substitutionOf);
      this.flattenPipes(binary.node.X!, stages, substitutionOf);
      this.flattenPipes(binary.node.Y!, stages, substitutionOf);
      return;
    }
    stages.push(statement);
  }

  /** Redirections on a compound statement still write files: keep them as a command with no words. */
  private recordRedirectsOnly(statement: Sh.Stmt, substitutionOf: number | null): void {
    if (statement.Redirs.length === 0) return;
    const redirects = this.redirects(statement.Redirs, substitutionOf);
    this.commands.push({ words: [], assignments: [], redirects, pipeline: this.nextPipeline++, position: 0, substitutionOf });
  }

  private command(statement: Sh.Stmt, pipeline: number, position: number, substitutionOf: number | null): void {
    const command = statement.Cmd;
    const redirects = this.redirects(statement.Redirs, substitutionOf);
    if (!command) {
      // Only redirections (`> file`): truncates or creates a file without running anything.
      this.commands.push({ words: [], assignments: [], redirects, pipeline, position, substitutionOf });
      return;
    }
    const type = this.syntax.NodeType(command);
    if (type === 'Subshell' || type === 'Block') {
      const nested = command as unknown as Sh.Subshell;
      this.statements(nested.Stmts, substitutionOf);
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
    const call = command as unknown as Sh.CallExpr;
    const index = this.commands.length;
    // Reserve the slot first so commands inside `$(…)` of this one point at it.
    this.commands.push(null as unknown as SimpleCommand);
    const assignments = call.Assigns.map((assign) => this.assignment(assign!, index));
    const words = call.Args.map((word) => this.word(word!, index));
    this.commands[index] = { words, assignments, redirects, pipeline, position, substitutionOf };
  }

  private assignment(assign: Sh.Assign, owner: number): string {
    if (assign.Array || assign.Index) throw new Unsupported('the script assigns an array, which the policy does not analyse');
    const name = assign.Name?.Value ?? '';
    const value = assign.Value ? this.word(assign.Value, owner).text : '';
    return `${name}${assign.Append ? '+=' : '='}${value}`;
  }

  private redirects(redirects: readonly (Sh.Redirect | null)[], owner: number | null): ShellRedirect[] {
    return redirects.map((redirect) => {
      const operator = REDIRECT_OPERATORS[redirect!.Op as number];
      if (!operator) throw new Unsupported(`the script uses a redirection the policy does not know (${String(redirect!.Op)})`);
      // A heredoc body is data on stdin, but `$(…)` inside an unquoted one still runs.
      if (redirect!.Hdoc) this.word(redirect!.Hdoc, owner);
      const target = redirect!.Word ? this.word(redirect!.Word, owner) : null;
      const fd = redirect!.N?.Value;
      return { operator: fd ? `${fd}${operator}` : operator, target };
    });
  }

  /** Resolves a word's text and kind; runs of `$(…)` inside it become commands of their own. */
  private word(word: Sh.Word, owner: number | null): ShellWord {
    let kind: ShellWord['kind'] = 'literal';
    let text = '';
    const raise = (to: ShellWord['kind']) => {
      if (to === 'dynamic' || (to === 'glob' && kind === 'literal')) kind = to;
    };
    for (const part of word.Parts) {
      const type = this.syntax.NodeType(part);
      if (type === 'Lit') {
        const value = (part as Sh.Lit).Value;
        if (/[*?[]/.test(value)) raise('glob');
        if (/\{[^}]*(,|\.\.)[^}]*\}/.test(value)) raise('dynamic');
        text += unescapeUnquoted(value);
      } else if (type === 'SglQuoted') {
        const quoted = part as Sh.SglQuoted;
        if (quoted.Dollar && quoted.Value.includes('\\')) raise('dynamic');
        text += quoted.Value;
      } else if (type === 'DblQuoted') {
        for (const inner of (part as Sh.DblQuoted).Parts) {
          if (this.syntax.NodeType(inner) === 'Lit') text += unescapeDoubleQuoted((inner as Sh.Lit).Value);
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
  private dynamicPart(part: Sh.Node, owner: number | null): string {
    this.syntax.Walk(part, (node) => {
      if (!node) return true;
      const type = this.syntax.NodeType(node);
      if (type === 'CmdSubst') {
        this.statements((node as Sh.CmdSubst).Stmts, owner);
        return false;
      }
      if (type === 'ProcSubst') {
        throw new Unsupported('the script uses process substitution (<(…) or >(…)), which the policy does not analyse');
      }
      return true;
    });
    const type = this.syntax.NodeType(part);
    if (type === 'CmdSubst') return '$(…)';
    if (type === 'ParamExp') return `$${(part as Sh.ParamExp).Param?.Value ?? '…'}`;
    return '$…';
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
