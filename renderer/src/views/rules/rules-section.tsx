import { CircleAlert, Pencil, Trash2, TriangleAlert } from 'lucide-react';
import { broadRuleWarning } from '../../../../shared/policy/rule-breadth.js';
import { useEffect, useState } from 'react';
import type { ExecPolicyRule, ExecPolicyRulesListResult } from '../../../../shared/protocol/methods/exec-policy.js';
import { formatPattern } from '../../format/rule-pattern.js';
import { useRulesStore, useThreadsStore } from '../../services/services.js';
import { DecisionBadge } from './decision-badge.js';
import { RuleCheck } from './rule-check.js';
import { RuleForm } from './rule-form.js';
import './rules.css';

const fileName = (file: string) => file.split(/[/\\]/).pop() ?? file;

/**
 * Settings → Command rules: the person's exec-policy rules (add, edit,
 * delete, saved at once), problems in the rules files, the built-in
 * defaults (read-only) and a box to test a command against all of them.
 */
export function RulesSection({ headingId, number }: { readonly headingId: string; readonly number: number }) {
  const list = useRulesStore((s) => s.list);
  const loadError = useRulesStore((s) => s.loadError);
  const load = useRulesStore((s) => s.load);
  const selectedThread = useThreadsStore((s) => s.selectedId);
  useEffect(() => {
    void load();
  }, [load]);

  return (
    <section className="setup-step rules-section" aria-labelledby={headingId} data-testid="rules-section">
      <h2 id={headingId} className="setup-step-title">
        <span className="setup-step-number" aria-hidden="true">
          {number}
        </span>
        Command rules
      </h2>
      <p className="setup-step-text">
        Which commands the agent may run without asking, must ask about, or may never run. Rules are saved as soon as you add or change
        them{list ? <> (in <code>{list.defaultFile}</code>)</> : null}, and files you edit by hand in that folder are picked up at once.
      </p>
      {loadError && (
        <p className="field-error" role="alert">
          The rules could not be read: {loadError}
        </p>
      )}
      {list && <RulesBody list={list} />}
      <RuleCheck threadId={selectedThread} />
    </section>
  );
}

/** The rules for every thread (`project` null) or one project's own, with a form that adds one there. */
export function RuleList({ list, project }: { readonly list: ExecPolicyRulesListResult; readonly project: string | null }) {
  const write = useRulesStore((s) => s.write);
  const brokenFiles = new Set(list.problems.filter((problem) => problem.keptPreviousRules).map((problem) => problem.file));
  const rules = list.rules.filter((rule) => rule.project === project);
  return (
    <>
      <ul className="rules-list" data-testid="rules-list" aria-label={project === null ? 'Your rules' : 'Rules for this project'}>
        {rules.length === 0 && <li className="rules-empty">{project === null ? 'No rules of your own yet.' : 'No rules for this project yet.'}</li>}
        {rules.map((rule) => (
          <RuleRow key={rule.source} rule={rule} editable={!brokenFiles.has(rule.file)} />
        ))}
      </ul>
      <RuleForm submitLabel="Add rule" onSubmit={(rule) => write(project === null ? { type: 'add', rule } : { type: 'add', rule, project })} />
    </>
  );
}

function RulesBody({ list }: { readonly list: ExecPolicyRulesListResult }) {
  const brokenFiles = new Set(list.problems.filter((problem) => problem.keptPreviousRules).map((problem) => problem.file));
  return (
    <>
      {list.watchError !== null && (
        <div className="callout callout-warning" role="alert" data-testid="rules-watch-error">
          <CircleAlert size={16} strokeWidth={2} className="callout-icon" aria-hidden="true" />
          <p>
            Wheelhouse cannot see changes to the rules files right now, so a rule edited outside Wheelhouse does not apply yet. Rules
            changed here still apply at once; Wheelhouse keeps trying. <span className="callout-detail">({list.watchError})</span>
          </p>
        </div>
      )}
      {list.problems.length > 0 && (
        <div className="callout callout-warning" role="alert" data-testid="rules-problems">
          <CircleAlert size={16} strokeWidth={2} className="callout-icon" aria-hidden="true" />
          <div>
            {list.problems.map((problem, index) => (
              <p key={index}>
                <strong>
                  {fileName(problem.file)}
                  {problem.line > 0 ? `, line ${problem.line}` : ''}
                  {problem.column !== null ? `, column ${problem.column}` : ''}
                </strong>
                : {problem.message}.{' '}
                {problem.keptPreviousRules ? 'Its rules from before this change still apply until it is fixed.' : 'That rule is skipped.'}
              </p>
            ))}
          </div>
        </div>
      )}
      <RuleList list={list} project={null} />
      <details className="rules-builtins" data-testid="rules-builtins">
        <summary>Built-in defaults ({list.builtins.length}, always on; your rules override all but “forbid”)</summary>
        <ul className="rules-list">
          {list.builtins.map((rule) => (
            <li key={rule.source} className="rule-row rule-row-builtin">
              <DecisionBadge decision={rule.decision} />
              <span className="rule-text">{rule.description}</span>
            </li>
          ))}
        </ul>
      </details>
    </>
  );
}

function RuleRow({ rule, editable }: { readonly rule: ExecPolicyRule; readonly editable: boolean }) {
  const write = useRulesStore((s) => s.write);
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const at = { file: rule.file, line: rule.line };
  if (editing) {
    return (
      <li className="rule-row rule-row-editing">
        <RuleForm
          initial={{ pattern: rule.pattern, decision: rule.decision, justification: rule.justification }}
          submitLabel="Save rule"
          onCancel={() => setEditing(false)}
          onSubmit={async (next) => {
            const outcome = await write({ type: 'update', at, rule: next });
            if (outcome.ok) setEditing(false);
            return outcome;
          }}
        />
      </li>
    );
  }
  const pattern = formatPattern(rule.pattern);
  const warning = broadRuleWarning(rule.pattern, rule.decision);
  return (
    <li className="rule-row" data-testid="rule-row">
      <DecisionBadge decision={rule.decision} />
      <code className="rule-pattern">{pattern}</code>
      {rule.justification && <span className="rule-text">{rule.justification}</span>}

      <span className="rule-source" title={rule.file}>
        {rule.project !== null ? 'this project' : fileName(rule.file)}:{rule.line}
      </span>
      {editable && (
        <span className="rule-actions">
          <button type="button" className="icon-button" aria-label={`Edit rule ${pattern}`} onClick={() => setEditing(true)}>
            <Pencil size={14} strokeWidth={2} aria-hidden="true" />
          </button>
          <button
            type="button"
            className="icon-button"
            aria-label={`Delete rule ${pattern}`}
            data-testid="rule-delete"
            onClick={async () => {
              const outcome = await write({ type: 'delete', at });
              setError(outcome.ok ? null : outcome.message);
            }}
          >
            <Trash2 size={14} strokeWidth={2} aria-hidden="true" />
          </button>
        </span>
      )}
      {warning && (
        <p className="rule-row-warning" data-testid="rule-row-warning">
          <TriangleAlert size={13} strokeWidth={2} aria-hidden="true" />
          {warning}
        </p>
      )}
      {error && (
        <p className="field-error rule-row-error" role="alert">
          {error}
        </p>
      )}
    </li>
  );
}
