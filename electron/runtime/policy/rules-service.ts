import type { AskForApproval as ProtocolAskForApproval } from '../../../shared/protocol/thread.js';
import type {
  ExecPolicyCheckResult,
  ExecPolicyRuleChange,
  ExecPolicyRuleProblem,
  ExecPolicyRulesListResult,
} from '../../../shared/protocol/methods/exec-policy.js';
import { decidedByOf, BUILTIN_RULES } from './decided-by.js';
import { ExecPolicyEngine, rulesDirectory, userRulesFile } from './home-rules.js';
import type { AskForApproval, SandboxMode } from './policy-vocabulary.js';
import { applyRuleChange } from './rules-editor.js';

export interface PolicyServiceDeps {
  readonly home: string;
  /** Told after every reload (a file changed on disk, or the editor wrote one). */
  readonly onRulesChanged: (problems: ExecPolicyRuleProblem[]) => void;
}

/**
 * The exec policy as the runtime serves it: one engine per home, opened with
 * the first command or rules request (the shell parser is large), watching
 * the rules folder from then on; the rules editor's list, write and check.
 */
export class PolicyService {
  private opening: Promise<ExecPolicyEngine> | null = null;
  private closed = false;

  constructor(private readonly deps: PolicyServiceDeps) {}

  engine(): Promise<ExecPolicyEngine> {
    this.opening ??= (async () => {
      const engine = await ExecPolicyEngine.open(this.deps.home);
      if (this.closed) return engine;
      engine.onReload(() => this.deps.onRulesChanged(problemsOf(engine)));
      // A watch that fails is retried by the engine and reported in the list (watchError).
      await engine.watch();
      if (this.closed) engine.stopWatching();
      return engine;
    })();
    return this.opening;
  }

  async list(): Promise<ExecPolicyRulesListResult> {
    const engine = await this.engine();
    return {
      rulesFolder: rulesDirectory(this.deps.home),
      defaultFile: userRulesFile(this.deps.home),
      builtins: [...BUILTIN_RULES],
      // A file with errors lists the rules still in force (its last good version); the editor leaves those alone.
      rules: engine.ruleFiles.flatMap((file) =>
        file.rules.map((rule) => ({
              source: rule.source,
              file: file.file,
              line: rule.location?.line ?? 0,
              pattern: rule.pattern.map((token) => (typeof token === 'string' ? token : [...token])),
              decision: rule.decision,
              justification: rule.justification,
              project: file.project,
        })),
      ),
      problems: problemsOf(engine),
      watchError: engine.watchError,
    };
  }

  /** One edit from the rules editor: validated, written atomically (0600), reloaded; answers the new list. */
  async write(change: ExecPolicyRuleChange): Promise<ExecPolicyRulesListResult> {
    const engine = await this.engine();
    await engine.serialized(() => applyRuleChange(this.deps.home, change));
    return this.list();
  }

  async check(command: string, settings: { approvalPolicy: AskForApproval; sandbox: SandboxMode; project?: string | null }): Promise<ExecPolicyCheckResult> {
    const engine = await this.engine();
    const decision = await engine.evaluate({ command, approvalPolicy: settings.approvalPolicy, sandboxMode: settings.sandbox, project: settings.project ?? null });
    const { requirement } = decision;
    return {
      decision: requirement.type === 'skip' ? 'allow' : requirement.type === 'needs_approval' ? 'prompt' : 'forbidden',
      reason: requirement.reason,
      decidedBy: decidedByOf(decision, settings.approvalPolicy),
      approvalPolicy: (typeof settings.approvalPolicy === 'string' ? settings.approvalPolicy : 'on-request') as ProtocolAskForApproval,
      sandbox: settings.sandbox,
      commands: decision.commands.map((verdict) => ({
        command: [...verdict.command],
        decision: verdict.decision,
        reason: verdict.reason,
        source: verdict.matchedRule?.source ?? null,
      })),
    };
  }

  close(): void {
    this.closed = true;
    void this.opening?.then((engine) => engine.stopWatching());
  }
}

function problemsOf(engine: ExecPolicyEngine): ExecPolicyRuleProblem[] {
  const kept = new Set(engine.ruleFiles.filter((file) => file.keptPrevious).map((file) => file.file));
  return engine.loadErrors.map((error) => ({
    file: error.file,
    line: error.line,
    column: error.column ?? null,
    message: error.message,
    keptPreviousRules: kept.has(error.file),
  }));
}
