import path from 'node:path';
import type { RuleDecision } from './policy-vocabulary.js';
import type { ShellWord } from './shell-parse.js';
import { CODE_RUNNERS, PRIVILEGE, SHELLS } from '../../../shared/policy/rule-breadth.js';

/**
 * The built-in judgement of one command (argv after wrappers were peeled):
 * what is known to be read-only, and what is dangerous enough to forbid or to
 * always ask about. Learned from Codex's `is_safe_command` and
 * `command_might_be_dangerous`, written for this policy.
 */
export interface BuiltinVerdict {
  readonly decision: RuleDecision;
  readonly name: string;
  readonly reason: string;
}

/** Commands that only read, whatever their (literal or globbed) arguments. */
export const ALWAYS_READ_ONLY = new Set([
  'cat', 'cd', 'cut', 'echo', 'expr', 'false', 'grep', 'egrep', 'fgrep', 'head', 'id', 'ls', 'nl', 'paste', 'pwd',
  'rev', 'seq', 'stat', 'tail', 'tr', 'true', 'uname', 'uniq', 'wc', 'which', 'whoami', 'printf', 'basename',
  'dirname', 'date', 'file', 'du', 'df', 'diff', 'cmp', 'realpath', 'readlink', 'tree', 'test', '[',
]);

/** Read-only git subcommands; global options that run programs or write files disqualify. */
const READ_ONLY_GIT = new Set(['status', 'log', 'diff', 'show', 'rev-parse', 'ls-files', 'blame', 'shortlog', 'describe']);

const FIND_ACTIONS_THAT_WRITE_OR_RUN = new Set([
  '-exec', '-execdir', '-ok', '-okdir', '-delete', '-fls', '-fprint', '-fprint0', '-fprintf',
]);

export { SHELLS };
/**
 * Programs that run code given to them: never proposed as "allow next time",
 * and a download piped into one is forbidden. The same sets make Settings
 * warn about a rule that allows one (shared/policy/rule-breadth.ts).
 */
export const INTERPRETERS: ReadonlySet<string> = new Set([...CODE_RUNNERS, ...PRIVILEGE]);
export const DOWNLOADERS = new Set(['curl', 'wget']);

const FORMATTERS = /^(mkfs(\..+)?|mke2fs|mkswap|wipefs|fdisk|sfdisk|parted|newfs(_.+)?)$/;
const BLOCK_DEVICE = /^\/dev\/(sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk|md|dm-|loop|mapper\/)/;

export function commandName(argv0: string): string {
  return path.posix.basename(argv0);
}

/** Dangerous commands: forbidden, or always asked about. Null when nothing dangerous was recognised. */
export function dangerousVerdict(words: readonly ShellWord[]): BuiltinVerdict | null {
  const argv = words.map((word) => word.text);
  const name = commandName(argv[0] ?? '');
  if (PRIVILEGE.has(name)) {
    return { decision: 'prompt', name: 'builtin:privilege', reason: `\`${name}\` runs a command with administrator rights` };
  }
  if (FORMATTERS.test(name)) {
    return { decision: 'forbidden', name: 'builtin:disk-format', reason: `\`${name}\` formats or repartitions a disk` };
  }
  if (name === 'dd' && argv.some((arg) => arg.startsWith('of=/dev/') && !isHarmlessDevice(arg.slice(3)))) {
    return { decision: 'forbidden', name: 'builtin:disk-write', reason: '`dd` writes straight to a device' };
  }
  if (name === 'shred' && argv.slice(1).some((arg) => BLOCK_DEVICE.test(arg))) {
    return { decision: 'forbidden', name: 'builtin:disk-write', reason: '`shred` overwrites a device' };
  }
  if (name === 'rm') return removalVerdict(words);
  if ((name === 'chmod' || name === 'chown' || name === 'chgrp') && hasShortFlag(argv, 'R')) {
    if (argv.slice(1).some((arg) => isRootLike(arg))) {
      return { decision: 'forbidden', name: 'builtin:recursive-root', reason: `\`${name} -R\` on the root or home folder` };
    }
  }
  return null;
}

function removalVerdict(words: readonly ShellWord[]): BuiltinVerdict | null {
  const argv = words.map((word) => word.text);
  const recursive = hasShortFlag(argv, 'r') || hasShortFlag(argv, 'R') || argv.includes('--recursive');
  const force = hasShortFlag(argv, 'f') || argv.includes('--force');
  if (recursive || force) {
    const operands = words.slice(1).filter((word) => !word.text.startsWith('-') || word.text === '-');
    if (operands.some((word) => isRootLike(word.text) || (word.kind === 'dynamic' && /^\$(HOME|…)?\/?\*?$/.test(word.text)))) {
      return { decision: 'forbidden', name: 'builtin:rm-root', reason: '`rm` of the root folder, the home folder or everything in them' };
    }
    return { decision: 'prompt', name: 'builtin:rm-force', reason: '`rm -r`/`rm -f` deletes without asking' };
  }
  return null;
}

/** `/`, `/*`, `~`, `~/`, `~/*`, `/usr`-style top-level system folders, `..`-climbing to them. */
function isRootLike(arg: string): boolean {
  const trimmed = arg.replace(/\/+\*?$/, '') || '/';
  if (trimmed === '/' || trimmed === '~' || trimmed === '$HOME' || trimmed === '*' && arg.startsWith('/')) return true;
  const normalized = path.posix.normalize(trimmed);
  if (normalized === '/' ) return true;
  return /^\/(bin|boot|dev|etc|home|lib|lib64|opt|proc|root|sbin|srv|sys|usr|var|Users|System|Library|Applications)$/.test(normalized);
}

function isHarmlessDevice(device: string): boolean {
  return device === '/dev/null' || device === '/dev/zero' || device === '/dev/stdout' || device === '/dev/stderr';
}

/** True for `-x`, or `x` within a bundle such as `-rf`; long options are ignored. */
function hasShortFlag(argv: readonly string[], flag: string): boolean {
  return argv.slice(1).some((arg) => /^-[A-Za-z]+$/.test(arg) && arg.includes(flag));
}

/** True when the command only reads (Codex's "known safe" commands). */
export function isKnownReadOnly(words: readonly ShellWord[]): boolean {
  if (words.length === 0 || words.some((word) => word.kind === 'dynamic')) return false;
  const argv = words.map((word) => word.text);
  const name = commandName(argv[0]!);
  if (argv[0] !== name) return false; // `./ls` or `/tmp/ls` is not the system's ls
  if (ALWAYS_READ_ONLY.has(name)) return true;
  // The rest decide by their options, so a glob that may expand to `-delete` disqualifies.
  if (words.some((word) => word.kind === 'glob')) return false;
  const args = argv.slice(1);
  switch (name) {
    case 'find':
      return !args.some((arg) => FIND_ACTIONS_THAT_WRITE_OR_RUN.has(arg));
    case 'rg':
      return !args.some((arg) => arg === '-z' || arg === '--search-zip' || /^--(pre|hostname-bin)(=|$)/.test(arg) || /^-[A-Za-y]*z/.test(arg));
    case 'base64':
      return !args.some((arg) => arg === '-o' || arg.startsWith('--output'));
    case 'sort':
      return !args.some((arg) => /^-[A-Za-z]*o/.test(arg) || arg.startsWith('--output') || arg.startsWith('--compress-program'));
    case 'sed':
      // Only `sed -n Np` / `sed -n M,Np` (print lines), as Codex allows.
      return args.length >= 2 && args[0] === '-n' && /^\d+(,\d+)?p$/.test(args[1]!) && args.slice(2).every((arg) => !arg.startsWith('-'));
    case 'git':
      return isReadOnlyGit(args);
    default:
      return false;
  }
}

function isReadOnlyGit(args: readonly string[]): boolean {
  let index = 0;
  // Global options before the subcommand: only `-C dir` and `--no-pager` are harmless.
  while (index < args.length && args[index]!.startsWith('-')) {
    if (args[index] === '-C') index += 2;
    else if (args[index] === '--no-pager') index += 1;
    else return false;
  }
  const subcommand = args[index];
  if (subcommand === 'branch') {
    return args.slice(index + 1).every((arg) => ['-a', '-r', '-v', '-vv', '--list', '--show-current', '--all', '--remotes'].includes(arg));
  }
  if (!subcommand || !READ_ONLY_GIT.has(subcommand)) return false;
  return !args.slice(index + 1).some((arg) => /^--(output|ext-diff|textconv|exec)/.test(arg) || arg === '-o');
}

/** Redirect targets that write somewhere other than the terminal or /dev/null. */
export function writesFiles(redirects: readonly { operator: string; target: ShellWord | null }[]): string[] {
  const written: string[] = [];
  for (const redirect of redirects) {
    const operator = redirect.operator.replace(/^\d+/, '');
    if (!['>', '>>', '>|', '&>', '&>>', '<>'].includes(operator) || !redirect.target) continue;
    if (isHarmlessDevice(redirect.target.text)) continue;
    written.push(redirect.target.text);
  }
  return written;
}

export function writesBlockDevice(redirectTargets: readonly string[]): boolean {
  return redirectTargets.some((target) => BLOCK_DEVICE.test(target));
}
