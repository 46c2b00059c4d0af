import { useCallback, useEffect, useId, useState } from 'react';
import { DEFAULT_RETENTION, type RetentionBudgets, type StorageUsage } from '../../../../shared/protocol/index.js';
import { client } from '../../services/services.js';
import { showRequestError } from '../../stores/toast-store.js';
import '../notifications/notifications.css';
import './storage.css';

const FIELDS: readonly { readonly key: keyof RetentionBudgets; readonly configKey: string; readonly label: string; readonly unit: string; readonly min: number }[] = [
  { key: 'maxAgeDays', configKey: 'max_age_days', label: 'Keep history and logs for', unit: 'days', min: 1 },
  { key: 'eventLogMb', configKey: 'event_log_mb', label: 'Event log', unit: 'MB', min: 16 },
  { key: 'processLogsMb', configKey: 'process_logs_mb', label: 'Command output', unit: 'MB', min: 16 },
  { key: 'jobLogsMb', configKey: 'job_logs_mb', label: 'Job logs', unit: 'MB', min: 16 },
  { key: 'checkpointsMb', configKey: 'checkpoints_mb', label: 'Checkpoints of archived threads', unit: 'MB', min: 16 },
];

const megabytes = (bytes: number) => (bytes < 1024 * 1024 ? '< 1' : String(Math.round(bytes / (1024 * 1024))));

/**
 * Settings → Storage: what Wheelhouse keeps on disk, and the budgets it is
 * kept within (config.toml's `[wheelhouse.retention]`, saved when a field is left).
 */
export function StorageSection({ number }: { readonly number: number }) {
  const headingId = useId();
  const [usage, setUsage] = useState<StorageUsage | null>(null);
  const [budgets, setBudgets] = useState<RetentionBudgets>(DEFAULT_RETENTION);
  const [drafts, setDrafts] = useState<Partial<Record<keyof RetentionBudgets, string>>>({});
  const refresh = useCallback(async () => {
    try {
      const report = await client.request('storage/usage', {});
      setUsage(report.usage);
      setBudgets(report.budgets);
    } catch (error) {
      showRequestError(error);
    }
  }, []);
  useEffect(() => {
    void refresh();
  }, [refresh]);

  const save = async (field: (typeof FIELDS)[number]) => {
    const text = drafts[field.key];
    if (text === undefined) return;
    const value = Number(text);
    if (!Number.isInteger(value) || value === budgets[field.key]) {
      setDrafts((d) => ({ ...d, [field.key]: undefined }));
      return;
    }
    try {
      await client.request('config/value/write', { keyPath: `wheelhouse.retention.${field.configKey}`, value });
      await refresh();
      setDrafts((d) => ({ ...d, [field.key]: undefined }));
    } catch (error) {
      showRequestError(error);
    }
  };

  return (
    <section className="setup-step storage-section" aria-labelledby={headingId} data-testid="storage-section">
      <h2 id={headingId} className="setup-step-title">
        <span className="setup-step-number" aria-hidden="true">
          {number}
        </span>
        Storage
      </h2>
      <p className="setup-step-text" data-testid="storage-usage">
        {usage ? `Wheelhouse uses ${megabytes(usage.totalBytes)} MB.` : 'Measuring what Wheelhouse keeps…'}{' '}
        Older history, command output and job logs are removed once past these limits; the latest turn of an open thread, running jobs and
        approvals that wait are always kept.
      </p>
      {usage && (
        <p className="storage-breakdown">
          Database {megabytes(usage.databaseBytes)} MB · command output {megabytes(usage.processLogBytes)} MB · job logs {megabytes(usage.jobLogBytes)} MB
        </p>
      )}
      <div className="storage-budgets">
        {FIELDS.map((field) => (
          <label key={field.key} className="storage-budget" data-testid={`budget-${field.key}`}>
            <span className="storage-budget-label">{field.label}</span>
            <input
              className="field-input storage-budget-input"
              type="number"
              min={field.min}
              step={1}
              value={drafts[field.key] ?? String(budgets[field.key])}
              onChange={(event) => setDrafts((d) => ({ ...d, [field.key]: event.target.value }))}
              onBlur={() => void save(field)}
              onKeyDown={(event) => {
                if (event.key === 'Enter') void save(field);
              }}
            />
            <span className="storage-budget-unit">{field.unit}</span>
          </label>
        ))}
      </div>
    </section>
  );
}
