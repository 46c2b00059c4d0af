import type { Job } from '../../../shared/protocol/index.js';

/**
 * Desktop notifications when a job ends: the web Notification API, which the
 * browser host and Electron's renderer both provide. Permission is asked when
 * the person creates a job (a click), never on load.
 */
export function askNotificationPermission(): void {
  if (typeof Notification === 'undefined' || Notification.permission !== 'default') return;
  void Notification.requestPermission().catch(() => undefined);
}

/** A job ended, or started waiting for the person's approval (a job they may not be watching). */
export function notifyJobEnded(job: Job, open: (jobId: string) => void): void {
  if (typeof Notification === 'undefined' || Notification.permission !== 'granted') return;
  const title =
    job.status === 'completed'
      ? `Job finished: ${job.name}`
      : job.status === 'failed'
        ? `Job failed: ${job.name}`
        : job.status === 'cancelled'
          ? `Job cancelled: ${job.name}`
          : `Job waiting for your approval: ${job.name}`;
  const body = job.status === 'failed' && job.nextRetryAt !== null ? `${job.detail ?? 'failed'} — it will retry automatically` : job.detail ?? '';
  try {
    const notification = new Notification(title, { body, tag: `job-${job.id}` });
    notification.onclick = () => {
      window.focus();
      open(job.id);
      notification.close();
    };
  } catch {
    // Some hosts allow the permission but not the constructor (e.g. needing a service worker).
  }
}
