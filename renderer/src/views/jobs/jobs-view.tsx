import { useEffect, useState } from 'react';
import { useJobsStore, useMachinesStore } from '../../services.js';
import { JobPage } from './job-page.js';
import { JobsList } from './jobs-list.js';
import { NewJobDialog } from './new-job-dialog.js';
import '../setup/setup.css';
import './jobs.css';

/** The Jobs dashboard (its own chunk): the list, or one job's page, and the New job dialog. */
export function JobsView() {
  const selectedJobId = useJobsStore((s) => s.selectedJobId);
  const job = useJobsStore((s) => (s.selectedJobId ? s.jobs.get(s.selectedJobId) : undefined));
  const loaded = useJobsStore((s) => s.loaded);
  const load = useJobsStore((s) => s.load);
  const [creating, setCreating] = useState(false);
  const loadMachines = useMachinesStore((s) => s.load);
  useEffect(() => {
    if (!loaded) void load();
  }, [loaded, load]);
  // Rows and pages name the machine a job runs on.
  useEffect(() => {
    void loadMachines();
  }, [loadMachines]);
  return (
    <div className="jobs-view" data-testid="jobs-view">
      {selectedJobId && job ? <JobPage job={job} /> : <JobsList onNewJob={() => setCreating(true)} />}
      {creating && <NewJobDialog onClose={() => setCreating(false)} />}
    </div>
  );
}
