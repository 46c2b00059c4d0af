import { useEffect, useState } from 'react';
import type { Schedule } from '../../../../shared/protocol/index.js';
import { useJobsStore, useMachinesStore, useSchedulesStore } from '../../services/services.js';
import { ScheduleDialog } from '../schedules/schedule-dialog.js';
import { SchedulesPage } from '../schedules/schedules-page.js';
import { JobPage } from './job-page.js';
import { JobsList } from './jobs-list.js';
import { NewJobDialog } from './new-job-dialog.js';
import '../setup/setup.css';
import './jobs.css';
import '../schedules/schedules.css';

/** The Jobs dashboard (its own chunk): the Jobs and Schedules tabs, one job's page, and the New job / New schedule dialogs. */
export function JobsView() {
  const selectedJobId = useJobsStore((s) => s.selectedJobId);
  const job = useJobsStore((s) => (s.selectedJobId ? s.jobs.get(s.selectedJobId) : undefined));
  const loaded = useJobsStore((s) => s.loaded);
  const load = useJobsStore((s) => s.load);
  const showJobs = useJobsStore((s) => s.show);
  const schedulesOpen = useSchedulesStore((s) => s.open);
  const showSchedules = useSchedulesStore((s) => s.show);
  const hideSchedules = useSchedulesStore((s) => s.hide);
  const [creating, setCreating] = useState<'job' | 'schedule' | null>(null);
  const [editing, setEditing] = useState<Schedule | null>(null);
  const loadMachines = useMachinesStore((s) => s.load);
  useEffect(() => {
    if (!loaded) void load();
  }, [loaded, load]);
  // Rows and pages name the machine a job runs on.
  useEffect(() => {
    void loadMachines();
  }, [loadMachines]);
  const onJobPage = selectedJobId !== null && job !== undefined && !schedulesOpen;
  return (
    <div className="jobs-view" data-testid="jobs-view">
      {!onJobPage && (
        <div className="jobs-tabs" role="tablist" aria-label="Jobs and schedules">
          <button type="button" role="tab" className="jobs-tab" aria-selected={!schedulesOpen} data-testid="tab-jobs" onClick={() => (hideSchedules(), showJobs(null))}>
            Jobs
          </button>
          <button type="button" role="tab" className="jobs-tab" aria-selected={schedulesOpen} data-testid="tab-schedules" onClick={() => showSchedules()}>
            Schedules
          </button>
        </div>
      )}
      {schedulesOpen ? (
        <SchedulesPage onNewSchedule={() => setCreating('schedule')} onEdit={setEditing} />
      ) : onJobPage ? (
        <JobPage job={job} />
      ) : (
        <JobsList onNewJob={() => setCreating('job')} />
      )}
      {creating === 'job' && <NewJobDialog onClose={() => setCreating(null)} />}
      {creating === 'schedule' && <ScheduleDialog onClose={() => setCreating(null)} />}
      {editing && <ScheduleDialog key={editing.id} editing={editing} onClose={() => setEditing(null)} />}
    </div>
  );
}
