import { X } from 'lucide-react';
import { useId, useState, type FormEvent, type KeyboardEvent } from 'react';
import { useJobsStore, useThreadsStore } from '../../services.js';
import { askNotificationPermission } from '../../stores/web-notifications.js';
import { jobTemplateErrors, jobTemplateParams, newJobTemplateForm, type JobTemplateForm } from '../../format/job-form.js';
import { JobTemplateFields } from './job-template-fields.js';

/**
 * "New job", for someone who does not live in a terminal: a name, a folder
 * (typed or browsed), then either the command (how often to retry, an
 * optional time limit) or an agent's goal with its budgets and approvals.
 */
export function NewJobDialog({ onClose }: { readonly onClose: () => void }) {
  const titleId = useId();
  const projectFolder = useThreadsStore((s) => s.projectFolder);
  const create = useJobsStore((s) => s.create);
  const creating = useJobsStore((s) => s.creating);
  const show = useJobsStore((s) => s.show);
  const [form, setForm] = useState<JobTemplateForm>(() => newJobTemplateForm(projectFolder ?? ''));
  const [name, setName] = useState('');
  const [tried, setTried] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setTried(true);
    if (!Object.values(jobTemplateErrors(form)).every((e) => e === null)) return;
    void askNotificationPermission();
    const job = await create(jobTemplateParams(form, name));
    if (job) {
      onClose();
      show(job.id);
    }
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape' && !event.defaultPrevented) onClose();
  };

  return (
    <div className="dialog-backdrop" onPointerDown={(e) => e.target === e.currentTarget && onClose()}>
      <form className="dialog new-job-dialog" role="dialog" aria-modal="true" aria-labelledby={titleId} data-testid="new-job-dialog" onKeyDown={onKeyDown} onSubmit={(e) => void submit(e)}>
        <div className="dialog-head">
          <h2 id={titleId} className="dialog-title">
            New job
          </h2>
          <button type="button" className="icon-button" aria-label="Close" onClick={onClose}>
            <X size={15} strokeWidth={2} aria-hidden="true" />
          </button>
        </div>
        <div className="new-job-body">
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
        </div>
        <div className="dialog-actions">
          <button type="button" className="button-ghost" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" data-testid="job-submit" disabled={creating}>
            Start job
          </button>
        </div>
      </form>
    </div>
  );
}
