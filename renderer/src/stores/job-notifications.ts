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

/** An agent job waits for the person: the click opens its conversation, where the approval is. */
export function notifyJobWaiting(job: Job, openThread: (threadId: string) => void): void {
  if (typeof Notification === 'undefined' || Notification.permission !== 'granted' || !job.threadId) return;
  const threadId = job.threadId;
  const command = job.agent?.waitingApproval?.command;
  try {
    const notification = new Notification(`Job waiting for approval: ${job.name}`, { body: command ? `Wants to run: ${command}` : 'A command needs your approval', tag: `job-${job.id}-approval` });
    notification.onclick = () => {
      window.focus();
      openThread(threadId);
      notification.close();
    };
  } catch {
    // As above.
  }
}
