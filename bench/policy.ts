import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { evaluateExecPolicy } from '../electron/runtime/policy/judge-command.js';
import type { ExecPolicyRequest, PrefixRule } from '../electron/runtime/policy/policy-vocabulary.js';
import { parseRuleFile } from '../electron/runtime/policy/rules-file.js';
import { loadShellParser } from '../electron/runtime/policy/shell-parse.js';
import { summarize, type LatencySummary } from './stats.js';

/** Time to decide one shell command: parse, rule matching, built-in checks, approval mode. */
export interface PolicyDecisionReport {
  readonly typicalCommand: LatencySummary & { readonly command: string };
  readonly longScript: LatencySummary & { readonly commands: number; readonly characters: number };
  /** One-time cost of loading the shell parser (1.5 MB of JavaScript). */
  readonly parserLoadMs: number;
  readonly target: string;
  readonly meetsTarget: boolean;
}

const TARGET_MEDIAN_MS = 0.2;
const TYPICAL = 'git status && npm test -- --run src/app.test.ts | tail -n 20';

/** Twenty user rules, as a person with a few amendments would have. */
function sampleRules(): readonly PrefixRule[] {
  const lines = Array.from({ length: 20 }, (_, index) => `prefix_rule(pattern = ["tool${index}", ["build", "test"]], decision = "${index % 3 === 0 ? 'prompt' : 'allow'}")`);
  return parseRuleFile(lines.join('\n'), 'bench.rules').rules;
}

function longScript(): string {
  const parts: string[] = [];
  for (let index = 0; index < 40; index += 1) {
    parts.push(`cd pkg${index} && FOO=${index} make -j4 build 2>&1 | tee ../log${index}.txt; grep -c error ../log${index}.txt || echo "pkg ${index} ok $(date +%s)"`);
  }
  return parts.join('\n');
}

function time(rules: readonly PrefixRule[], request: ExecPolicyRequest, iterations: number): number[] {
  for (let index = 0; index < Math.min(500, iterations); index += 1) evaluateExecPolicy(rules, request);
  const samples: number[] = [];
  for (let index = 0; index < iterations; index += 1) {
    const start = performance.now();
    evaluateExecPolicy(rules, request);
    samples.push(performance.now() - start);
  }
  return samples;
}

export async function policyDecisionBench(options: { readonly iterations?: number } = {}): Promise<PolicyDecisionReport> {
  const iterations = options.iterations ?? 5000;
  const loadStart = performance.now();
  await loadShellParser();
  const parserLoadMs = Math.round((performance.now() - loadStart) * 10) / 10;
  const rules = sampleRules();
  const typical = summarize(time(rules, { command: TYPICAL, approvalPolicy: 'on-request', sandboxMode: 'workspace-write' }, iterations));
  const script = longScript();
  const long = summarize(time(rules, { command: script, approvalPolicy: 'untrusted', sandboxMode: 'workspace-write' }, Math.ceil(iterations / 10)));
  const commands = evaluateExecPolicy(rules, { command: script, approvalPolicy: 'untrusted', sandboxMode: 'workspace-write' }).commands.length;
  return {
    typicalCommand: { ...typical, command: TYPICAL },
    longScript: { ...long, commands, characters: script.length },
    parserLoadMs,
    target: `typical command median <= ${TARGET_MEDIAN_MS} ms`,
    meetsTarget: typical.medianMs <= TARGET_MEDIAN_MS,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write(`${JSON.stringify(await policyDecisionBench(), null, 2)}\n`);
}
