/**
 * Which command rules are broader than they look. An allow rule whose first
 * word is a shell, an interpreter or `sudo` lets the agent run anything at
 * all without asking (`python3 -c '…'`, `bash -c '…'`); one whose only word
 * is a many-purpose tool (`git`, `npm`) allows its dangerous subcommands too.
 * The runtime uses the same sets to never propose such a rule itself.
 */

/** Shells whose `-c` script the runtime reads as POSIX shell (each runs any command it is given). */
export const SHELLS: ReadonlySet<string> = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'fish']);

/** Programs that run code or commands given to them (shells included). */
export const CODE_RUNNERS: ReadonlySet<string> = new Set([
  ...SHELLS,
  'csh', 'tcsh', 'pwsh', 'powershell',
  'python', 'python2', 'python3', 'perl', 'ruby', 'node', 'deno', 'bun', 'php', 'lua', 'Rscript', 'osascript',
  'eval', 'source', '.', 'exec', 'env', 'xargs', 'nohup', 'nice', 'timeout', 'time', 'watch', 'npx', 'bunx', 'uvx', 'pipx',
]);

/** Programs that run a command with administrator rights. */
export const PRIVILEGE: ReadonlySet<string> = new Set(['sudo', 'doas', 'su', 'pkexec']);

/** Tools whose subcommands range from harmless to destructive: allowing the bare name allows them all. */
const MANY_PURPOSE: Readonly<Record<string, string>> = {
  git: 'including ones that delete work or publish it (git push --force, git reset --hard)',
  npm: 'including ones that run any code (npm exec) or publish packages',
  yarn: 'including ones that run any code (yarn dlx)',
  pnpm: 'including ones that run any code (pnpm dlx)',
  cargo: 'including ones that publish or install programs',
  pip: 'including installing any package',
  docker: 'including ones that can reach the whole computer (docker run -v /:/host)',
  kubectl: 'including ones that delete what runs in a cluster',
  make: 'which runs whatever the Makefile says',
  rm: 'which deletes files',
};

/** The words a rule's first position can be: one word, or alternatives. */
type PatternToken = string | readonly string[];

/**
 * Why an allow (or ask) rule is broader than it looks, in a sentence; null
 * when it is not. Forbid rules are never too broad.
 */
export function broadRuleWarning(pattern: readonly PatternToken[], decision: 'allow' | 'prompt' | 'forbidden'): string | null {
  if (decision !== 'allow' || pattern.length === 0) return null;
  const first = pattern[0]!;
  const programs = (typeof first === 'string' ? [first] : [...first]).map((word) => word.split('/').pop() ?? word);
  const privileged = programs.find((program) => PRIVILEGE.has(program));
  if (privileged) return `“${privileged}” runs any command as administrator: this rule would let the agent do anything to this computer without asking.`;
  const runner = programs.find((program) => CODE_RUNNERS.has(program));
  if (runner) return `“${runner}” runs any code it is given: this rule would let the agent run anything without asking.`;
  if (pattern.length === 1) {
    const tool = programs.find((program) => program in MANY_PURPOSE);
    if (tool) return `This allows every “${tool}” command, ${MANY_PURPOSE[tool]}. Name the subcommand too (for example “${tool} ${exampleSubcommand(tool)}”).`;
  }
  return null;
}

function exampleSubcommand(tool: string): string {
  switch (tool) {
    case 'git':
      return 'status';
    case 'npm':
    case 'yarn':
    case 'pnpm':
    case 'cargo':
    case 'make':
      return 'test';
    case 'pip':
      return 'list';
    case 'docker':
    case 'kubectl':
      return 'ps';
    default:
      return '…';
  }
}
