import type { DesktopRuntimeState } from '../../shared/protocol/index.js';
import type { ActivityCounts } from './desktop-activity.js';

/** What a tray menu item does when chosen. */
export type TrayAction = 'open' | 'jobs' | 'approvals' | 'pauseAll' | 'quit';

export type TrayMenuItem =
  | { readonly kind: 'action'; readonly action: TrayAction; readonly label: string; readonly enabled: boolean }
  | { readonly kind: 'info'; readonly label: string }
  | { readonly kind: 'separator' };

/** Which tray picture: plain, a dot for running jobs, an orange dot for approvals waiting. */
export type TrayIcon = 'idle' | 'busy' | 'attention';

export interface TrayView {
  readonly tooltip: string;
  /** Short text beside the menu-bar icon (macOS only; empty hides it). */
  readonly title: string;
  readonly icon: TrayIcon;
  /** The dock / launcher badge: approvals waiting and jobs running (0 hides it). */
  readonly badgeCount: number;
  readonly menu: readonly TrayMenuItem[];
}

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * The tray (menu bar) icon, its badge and its menu for what the runtime is
 * doing: jobs running and approvals waiting, with the ways to reach them,
 * pause every job, or quit.
 */
export function trayView(counts: ActivityCounts, runtime: DesktopRuntimeState): TrayView {
  const { runningJobs, waitingApprovals } = counts;
  if (runtime.state === 'failed') {
    return {
      tooltip: 'Wheelhouse could not start',
      title: '',
      icon: 'attention',
      badgeCount: 0,
      menu: [
        { kind: 'action', action: 'open', label: 'Open Wheelhouse', enabled: true },
        { kind: 'info', label: 'Wheelhouse could not start' },
        { kind: 'separator' },
        { kind: 'action', action: 'quit', label: 'Quit Wheelhouse', enabled: true },
      ],
    };
  }
  const jobs = runningJobs === 0 ? 'No jobs running' : `${count(runningJobs, 'job', 'jobs')} running`;
  const approvals = waitingApprovals === 0 ? null : `${count(waitingApprovals, 'approval', 'approvals')} waiting for you`;
  return {
    tooltip: ['Wheelhouse', jobs, approvals].filter(Boolean).join(' — '),
    title: waitingApprovals > 0 ? `${waitingApprovals}!` : runningJobs > 0 ? String(runningJobs) : '',
    icon: waitingApprovals > 0 ? 'attention' : runningJobs > 0 ? 'busy' : 'idle',
    badgeCount: runningJobs + waitingApprovals,
    menu: [
      { kind: 'action', action: 'open', label: 'Open Wheelhouse', enabled: true },
      { kind: 'separator' },
      runningJobs > 0 ? { kind: 'action', action: 'jobs', label: `${jobs}…`, enabled: true } : { kind: 'info', label: jobs },
      ...(approvals ? [{ kind: 'action', action: 'approvals', label: `${approvals}…`, enabled: true } as const] : []),
      { kind: 'action', action: 'pauseAll', label: 'Pause all jobs', enabled: runningJobs > 0 },
      { kind: 'separator' },
      { kind: 'action', action: 'quit', label: 'Quit Wheelhouse', enabled: true },
    ],
  };
}
