import {
  DOWNLOADERS,
  INTERPRETERS,
  SHELLS,
  commandName,
  dangerousVerdict,
  isKnownReadOnly,
  writesBlockDevice,
  writesFiles,
} from './command-safety.js';
import { VERDICT_SEVERITY as SEVERITY, decideRequirement } from './approval-modes.js';
import type { CommandVerdict, ExecPolicyDecision, ExecPolicyRequest, MatchedRule, PrefixRule, RuleDecision } from './policy-vocabulary.js';
import { patternMatches } from './rules-file.js';
import { parseShellScript, type ShellWord, type SimpleCommand } from './shell-parse.js';

/**
 * Judges a shell script or argv against prefix rules and the built-in
 * defaults, command by command; the most restrictive verdict wins and the
 * approval mode and sandbox turn it into seed 000's requirement.
 * Pure and synchronous: a script that is not plain throws `ShellParserNotLoaded` until `loadShellParser` has run.
 */
export function evaluateExecPolicy(rules: readonly PrefixRule[], request: ExecPolicyRequest): ExecPolicyDecision {
  const verdicts = typeof request.command === 'string'
    ? judgeScript(rules, request.command, 0)
    : judgeArgv(rules, request.command.map((text) => ({ text, kind: 'literal' as const })), 0);
  return decideRequirement(verdicts, request);
}

const MAX_NESTING = 4;

function judgeScript(rules: readonly PrefixRule[], script: string, depth: number): CommandVerdict[] {
  const parsed = parseShellScript(script);
  if (!parsed.ok) return [unparsable(script, parsed.reason)];
  const verdicts: CommandVerdict[] = [];
  for (const command of parsed.commands) verdicts.push(...judgeCommand(rules, command, depth));
  verdicts.push(...pipelineVerdicts(parsed.commands));
  return verdicts;
}

function unparsable(script: string, reason: string): CommandVerdict {
  return { command: [script], decision: 'prompt', reason, matchedRule: null };
}

function judgeCommand(rules: readonly PrefixRule[], command: SimpleCommand, depth: number): CommandVerdict[] {
  const written = writesFiles(command.redirects);
  const verdicts: CommandVerdict[] = [];
  if (writesBlockDevice(written)) {
    verdicts.push({
      command: [...command.words.map((word) => word.text), `> ${written.join(' ')}`],
      decision: 'forbidden',
      reason: 'a redirection writes straight to a disk device',
      matchedRule: builtinRule('builtin:disk-write', 'forbidden', ['>'], written),
    });
  }
  if (command.words.length === 0) {
    if (written.length > 0) {
      verdicts.push({ command: [`> ${written.join(' ')}`], decision: 'unmatched', reason: `writes ${written.join(', ')}`, matchedRule: null });
    }
    return verdicts;
  }
  verdicts.push(...judgeArgv(rules, command.words, depth, { written, assignments: command.assignments }));
  return verdicts;
}

interface CommandContext {
  readonly written: readonly string[];
  readonly assignments: readonly string[];
}

function judgeArgv(rules: readonly PrefixRule[], words: readonly ShellWord[], depth: number, context: CommandContext = { written: [], assignments: [] }): CommandVerdict[] {
  const argv = words.map((word) => word.text);
  const nestedScript = shellScriptArgument(words);
  if (nestedScript !== undefined) {
    if (depth >= MAX_NESTING) {
      return [{ command: argv, decision: 'prompt', reason: `shells nested more than ${MAX_NESTING} deep are not analysed`, matchedRule: null }];
    }
    if (nestedScript === null) {
      return [{ command: argv, decision: 'prompt', reason: 'runs a shell script whose text is only known when it runs', matchedRule: null }];
    }
    // `bash -lc '…'`: the inner script's commands are what runs.
    const inner = judgeScript(rules, nestedScript, depth + 1);
    if (context.written.length > 0) inner.push(unmatchedWrite(argv, context.written));
    return inner;
  }

  const ruleVerdict = matchRules(rules, words);
  const danger = dangerousVerdict(words);
  const dangerVerdict: CommandVerdict | null = danger
    ? { command: argv, decision: danger.decision, reason: danger.reason, matchedRule: builtinRule(danger.name, danger.decision, [argv[0]!], argv) }
    : null;
  const wrapped = unwrap(words);
  if (ruleVerdict) {
    // The person's rule decides the whole command; only a built-in `forbidden` still overrides it.
    const verdicts = [ruleVerdict];
    if (dangerVerdict?.decision === 'forbidden') verdicts.push(dangerVerdict);
    if (wrapped && ruleVerdict.decision !== 'allow') verdicts.push(...judgeArgv(rules, wrapped.words, depth + 1, withAssignments(context, wrapped)));
    return verdicts;
  }
  const verdicts: CommandVerdict[] = dangerVerdict ? [dangerVerdict] : [];
  if (wrapped) {
    // A wrapper (`nice`, `timeout 5`, `env X=1`) is transparent: what it runs is judged.
    if (wrapped.words.length === 0) return [...verdicts, unmatchedVerdict(words, context)];
    return [...verdicts, ...judgeArgv(rules, wrapped.words, depth + 1, withAssignments(context, wrapped))];
  }
  if (verdicts.length > 0) return verdicts;
  if (isKnownReadOnly(words) && context.written.length === 0 && context.assignments.length === 0) {
    return [{ command: argv, decision: 'allow', reason: `\`${commandName(argv[0]!)}\` only reads`, matchedRule: builtinRule('builtin:read-only', 'allow', [argv[0]!], argv) }];
  }
  return [unmatchedVerdict(words, context)];
}

function withAssignments(context: CommandContext, wrapped: Unwrapped): CommandContext {
  return wrapped.assignments.length === 0 ? context : { ...context, assignments: [...context.assignments, ...wrapped.assignments] };
}

function unmatchedVerdict(words: readonly ShellWord[], context: CommandContext): CommandVerdict {
  const argv = words.map((word) => word.text);
  const dynamic = words.some((word) => word.kind === 'dynamic');
  const reason = dynamic
    ? `\`${argv.join(' ')}\` uses values only known when it runs`
    : context.written.length > 0
      ? `\`${argv.join(' ')}\` writes ${context.written.join(', ')}`
      : `\`${argv.join(' ')}\` is not known to be read-only`;
  const literal = words.every((word) => word.kind === 'literal') && context.written.length === 0 && context.assignments.length === 0;
  const proposedPrefix = literal && !INTERPRETERS.has(commandName(argv[0]!)) ? argv : null;
  return { command: argv, decision: 'unmatched', reason, matchedRule: null, proposedPrefix };
}

function unmatchedWrite(argv: readonly string[], written: readonly string[]): CommandVerdict {
  return { command: argv, decision: 'unmatched', reason: `writes ${written.join(', ')}`, matchedRule: null };
}

/** The most restrictive matching rule. Allow rules never vouch for a command with unknown (`$…`) words. */
function matchRules(rules: readonly PrefixRule[], words: readonly ShellWord[]): CommandVerdict | null {
  const argv = words.map((word) => word.text);
  const dynamic = words.some((word) => word.kind === 'dynamic');
  let best: PrefixRule | null = null;
  for (const rule of rules) {
    if (!patternMatches(rule.pattern, argv)) continue;
    if (words.slice(0, rule.pattern.length).some((word) => word.kind === 'dynamic')) continue;
    if (rule.decision === 'allow' && dynamic) continue;
    if (!best || SEVERITY[rule.decision] > SEVERITY[best.decision]) best = rule;
  }
  if (!best) return null;
  const reason = best.justification ?? `rule ${best.source} says ${best.decision}`;
  return { command: argv, decision: best.decision, reason, matchedRule: { ...best, command: argv } };
}

function builtinRule(source: string, decision: RuleDecision, pattern: readonly string[], command: readonly string[]): MatchedRule {
  return { source, pattern, decision, justification: null, command };
}

/**
 * The script a command runs: for `bash -c SCRIPT` / `bash -lc SCRIPT` (sh, zsh, …) the
 * argument after the first flag bundle containing `c`; for `eval ARGS` the joined
 * arguments. Null when that script is not a literal, undefined when the command is
 * not of that form.
 */
function shellScriptArgument(words: readonly ShellWord[]): string | null | undefined {
  const name = commandName(words[0]?.text ?? '');
  if (name === 'eval') {
    const args = words.slice(1);
    return args.every((word) => word.kind === 'literal') ? args.map((word) => word.text).join(' ') : null;
  }
  if (!SHELLS.has(name)) return undefined;
  const flag = words.findIndex((word, index) => index > 0 && /^-[A-Za-z]*c[A-Za-z]*$/.test(word.text));
  if (flag < 0) return undefined;
  const script = words[flag + 1];
  if (!script) return null;
  return script.kind === 'literal' ? script.text : null;
}

interface Unwrapped {
  readonly words: readonly ShellWord[];
  /** `env NAME=value cmd` sets variables that can change what cmd does (PATH, LD_PRELOAD). */
  readonly assignments: readonly string[];
}

/** The command run by a wrapper (`env X=1 cmd`, `nice`, `nohup`, `timeout 5 cmd`, `xargs cmd`, `sudo cmd`…). */
function unwrap(words: readonly ShellWord[]): Unwrapped | null {
  const name = commandName(words[0]?.text ?? '');
  let index = 1;
  const skipOptions = (withValue: Set<string>) => {
    while (index < words.length && words[index]!.text.startsWith('-') && words[index]!.text !== '--') {
      index += withValue.has(words[index]!.text) ? 2 : 1;
    }
    if (words[index]?.text === '--') index += 1;
  };
  const assignments: string[] = [];
  switch (name) {
    case 'env':
      skipOptions(new Set(['-u', '-C', '-S']));
      while (index < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[index]!.text)) assignments.push(words[index++]!.text);
      // Bare `env` prints the environment.
      if (index >= words.length && assignments.length === 0) return null;
      break;
    case 'nice':
      skipOptions(new Set(['-n']));
      break;
    case 'nohup':
    case 'time':
    case 'exec':
    case 'stdbuf':
      skipOptions(new Set());
      break;
    case 'command':
      if (words[1]?.text === '-v' || words[1]?.text === '-V') return null;
      skipOptions(new Set());
      break;
    case 'sudo':
    case 'doas':
      skipOptions(new Set(['-u', '-g', '-C', '-D', '-h', '-p', '-U', '-r', '-t']));
      break;
    case 'timeout':
      skipOptions(new Set(['-s', '-k', '--signal', '--kill-after']));
      index += 1; // the duration
      break;
    case 'xargs':
      skipOptions(new Set(['-I', '-L', '-n', '-P', '-d', '-E', '-s', '-a']));
      // xargs appends words read from stdin, which may even look like options.
      return {
        words: [...(index < words.length ? words.slice(index) : [{ text: 'echo', kind: 'literal' as const }]), { text: '<words from stdin>', kind: 'glob' }],
        assignments,
      };
    default:
      return null;
  }
  return { words: words.slice(index), assignments };
}

/** A download piped into something that runs code (`curl … | sh`) is forbidden. */
function pipelineVerdicts(commands: readonly SimpleCommand[]): CommandVerdict[] {
  const verdicts: CommandVerdict[] = [];
  const byPipeline = new Map<number, SimpleCommand[]>();
  for (const command of commands) {
    const stages = byPipeline.get(command.pipeline) ?? [];
    stages.push(command);
    byPipeline.set(command.pipeline, stages);
  }
  for (const stages of byPipeline.values()) {
    const downloader = stages.find((stage) => DOWNLOADERS.has(programOf(stage)));
    if (!downloader) continue;
    const runner = stages.find((stage) => stage.position > downloader.position && INTERPRETERS.has(programOf(stage)));
    if (runner) {
      const argv = [...downloader.words.map((word) => word.text), '|', ...runner.words.map((word) => word.text)];
      verdicts.push({
        command: argv,
        decision: 'forbidden',
        reason: 'pipes a download into a program that runs it',
        matchedRule: builtinRule('builtin:download-to-shell', 'forbidden', [programOf(downloader), '|', programOf(runner)], argv),
      });
    }
  }
  // `… | sh`, `… | python3 -`: code read from a pipe cannot be judged before it runs.
  for (const command of commands) {
    const program = programOf(command);
    const operands = command.words.slice(1).filter((word) => !word.text.startsWith('-') || word.text === '-');
    const readsStdin = operands.length === 0 || operands[0]!.text === '-';
    if (command.position > 0 && CODE_RUNNERS.has(program) && readsStdin && !verdicts.some((verdict) => verdict.command.includes(program))) {
      const argv = command.words.map((word) => word.text);
      verdicts.push({ command: argv, decision: 'prompt', reason: `\`${program}\` runs code read from a pipe`, matchedRule: builtinRule('builtin:pipe-to-shell', 'prompt', [program], argv) });
    }
  }
  // `sh -c "$(curl …)"`: a download substituted into an interpreter's arguments.
  for (const command of commands) {
    if (command.substitutionOf === null || !DOWNLOADERS.has(programOf(command))) continue;
    const owner = commands[command.substitutionOf];
    if (owner && INTERPRETERS.has(programOf(owner))) {
      const argv = owner.words.map((word) => word.text);
      verdicts.push({
        command: argv,
        decision: 'forbidden',
        reason: 'runs a downloaded script',
        matchedRule: builtinRule('builtin:download-to-shell', 'forbidden', [programOf(owner)], argv),
      });
    }
  }
  return verdicts;
}

const CODE_RUNNERS = new Set([...SHELLS, 'python', 'python3', 'perl', 'ruby', 'node', 'php']);

function programOf(command: SimpleCommand): string {
  return commandName(command.words[0]?.text ?? '');
}
