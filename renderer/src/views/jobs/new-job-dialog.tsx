import { useEffect, useState, type FormEvent } from 'react';
import { useJobsStore, useProjectsStore, useThreadsStore } from '../../services/services.js';
import { SeparateCopyChoice } from '../projects/separate-copy-choice.js';
import { askNotificationPermission } from '../../stores/web-notifications.js';
import { jobTemplateErrors, jobTemplateParams, newJobTemplateForm, type JobTemplateForm } from '../../format/job-form.js';
import { JobDialogFrame } from './job-dialog-frame.js';
import { JobTemplateFields } from './job-template-fields.js';

/**
 * "New job", for someone who does not live in a terminal: a name, a folder
 * (typed or browsed), then either the command (how often to retry, an
 * optional time limit) or an agent's goal with its budgets and approvals, and,
 * in a git repository, whether the agent works in a separate copy.
 */
export function NewJobDialog({ onClose }: { readonly onClose: () => void }) {
  const projectFolder = useThreadsStore((s) => s.projectFolder);
  const create = useJobsStore((s) => s.create);
  const creating = useJobsStore((s) => s.creating);
  const show = useJobsStore((s) => s.show);
  const [form, setForm] = useState<JobTemplateForm>(() => newJobTemplateForm(projectFolder ?? ''));
  const [name, setName] = useState('');
  const [tried, setTried] = useState(false);
  const [worktree, setWorktree] = useState(false);
  const folder = form.cwd.trim();
  const repository = useProjectsStore((s) => (folder ? s.details[folder]?.repository : undefined));
  const known = useProjectsStore((s) => Boolean(folder && s.details[folder]));
  const readDetails = useProjectsStore((s) => s.readDetails);
  // Only an agent job in a repository can have its own copy: the choice appears once the folder is known to be one.
  useEffect(() => {
    if (form.kind === 'agent' && folder.startsWith('/') && !known) void readDetails(folder);
  }, [form.kind, folder, known, readDetails]);
  const offerCopy = form.kind === 'agent' && Boolean(repository);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setTried(true);
    if (!Object.values(jobTemplateErrors(form)).every((e) => e === null)) return;
    void askNotificationPermission();
    const params = jobTemplateParams(form, name);
    const job = await create(params.kind === 'agent' && offerCopy && worktree ? { ...params, worktree: true } : params);
    if (job) {
      onClose();
      show(job.id);
    }
  };

  return (
    <JobDialogFrame title="New job" testId="new-job-dialog" submitLabel="Start job" submitTestId="job-submit" busy={creating} onSubmit={(e) => void submit(e)} onClose={onClose}>
      <JobTemplateFields
        form={form}
        tried={tried}
        onChange={(change) => setForm((f) => ({ ...f, ...change }))}
        name={
          <label className="field">
            <span className="field-label">
              Name <span className="field-optional">optional</span>
            </span>
            <input className="field-input" data-testid="job-name" placeholder="Nightly build" value={name} onChange={(e) => setName(e.target.value)} autoFocus />
          </label>
        }
      />
      {offerCopy && <SeparateCopyChoice repository={repository} checked={worktree} onChange={setWorktree} testId="job-worktree" />}
    </JobDialogFrame>
  );
}
