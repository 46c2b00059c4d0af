import { Folder, GitBranch, SquarePen, X } from 'lucide-react';
import { useEffect, useId } from 'react';
import type { ProjectSettings } from '../../../../shared/protocol/methods/projects.js';
import { useProjectsStore, useRulesStore } from '../../services/services.js';
import { RuleList } from '../rules/rules-section.js';
import './projects.css';
import { ModalDialog } from '../common/modal-dialog.js';

const SANDBOX_WORDS = { 'read-only': 'Read only', 'workspace-write': 'Can edit the project', 'danger-full-access': 'Full access' } as const;
const APPROVAL_WORDS = { untrusted: 'Ask for anything not known safe', 'on-request': 'Ask when it needs more access', 'on-failure': 'Ask after a failure', never: 'Never ask' } as const;

/**
 * A project, opened from the folder in the conversation header: where it is, its branch and
 * whether it has uncommitted changes, and what its new threads start with (remembered).
 */
export function ProjectPanel({ onNewThread }: { readonly onNewThread: (folder: string) => void }) {
  const folder = useProjectsStore((s) => s.openProject);
  const details = useProjectsStore((s) => (s.openProject ? s.details[s.openProject] : undefined));
  const show = useProjectsStore((s) => s.showProject);
  const write = useProjectsStore((s) => s.writeSettings);
  const titleId = useId();
  if (!folder) return null;
  const close = () => show(null);
  const settings = details?.settings;
  const set = (change: Partial<ProjectSettings>) => void write(folder, change);

  return (
    <ModalDialog className="project-panel" testId="project-panel" titleId={titleId} onClose={close}>
      <div className="dialog-head">
        <h2 id={titleId} className="dialog-title">
          <Folder size={15} strokeWidth={1.9} aria-hidden="true" /> {details?.name ?? folder}
        </h2>
        <button type="button" className="icon-button" aria-label="Close" onClick={close}>
          <X size={15} strokeWidth={2} aria-hidden="true" />
        </button>
      </div>
      <p className="project-path">{folder}</p>
      <p className="project-repo" data-testid="project-repo">
        {!details ? (
          'Reading…'
        ) : details.repository ? (
          <>
            <GitBranch size={13} strokeWidth={1.9} aria-hidden="true" /> {details.repository.branch ?? 'detached commit'}
            {details.repository.dirty ? ' · uncommitted changes' : ' · clean'}
          </>
        ) : (
          'Not a git repository: undo still works, separate copies need git.'
        )}
      </p>
      {settings && (
        <fieldset className="project-settings">
          <legend>New threads here start with</legend>
          <label>
            <span>Model</span>
            <input
              type="text"
              defaultValue={settings.model ?? ''}
              placeholder="the default model"
              data-testid="project-model"
              onBlur={(e) => {
                const model = e.target.value.trim() || null;
                if (model !== settings.model) set({ model });
              }}
            />
          </label>
          <label>
            <span>Sandbox</span>
            <select value={settings.sandbox ?? ''} data-testid="project-sandbox" onChange={(e) => set({ sandbox: (e.target.value || null) as ProjectSettings['sandbox'] })}>
              <option value="">the default</option>
              {Object.entries(SANDBOX_WORDS).map(([value, words]) => (
                <option key={value} value={value}>
                  {words}
                </option>
              ))}
            </select>
          </label>
          <label>
            <span>Approvals</span>
            <select value={settings.approvalPolicy ?? ''} data-testid="project-approvals" onChange={(e) => set({ approvalPolicy: (e.target.value || null) as ProjectSettings['approvalPolicy'] })}>
              <option value="">the default</option>
              {Object.entries(APPROVAL_WORDS).map(([value, words]) => (
                <option key={value} value={value}>
                  {words}
                </option>
              ))}
            </select>
          </label>
        </fieldset>
      )}
      <ProjectRules folder={folder} />
      <div className="dialog-actions">
        <button
          type="button"
          className="button button-primary"
          onClick={() => {
            close();
            onNewThread(folder);
          }}
        >
          <SquarePen size={14} strokeWidth={2} aria-hidden="true" />
          New thread here
        </button>
      </div>
    </ModalDialog>
  );
}

/**
 * Command rules of this project only, beside the ones in Settings that hold everywhere
 * (kept in the Wheelhouse home, so an agent working here cannot write its own).
 */
function ProjectRules({ folder }: { readonly folder: string }) {
  const list = useRulesStore((s) => s.list);
  const load = useRulesStore((s) => s.load);
  useEffect(() => {
    void load();
  }, [load]);
  return (
    <fieldset className="project-rules" data-testid="project-rules">
      <legend>Command rules for this project</legend>
      <p className="project-rules-hint">They apply to commands in this project’s threads (separate copies included), on top of the rules in Settings.</p>
      {list ? <RuleList list={list} project={folder} /> : <p className="project-rules-hint">Reading…</p>}
    </fieldset>
  );
}
