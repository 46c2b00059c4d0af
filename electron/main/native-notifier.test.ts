import { describe, expect, it } from 'vitest';
import { approvalNotice, jobNotice } from '../../shared/notices.js';
import { DEFAULT_NOTIFICATION_PREFERENCES, type DesktopOpenTarget, type Job, type NotificationPreferences } from '../../shared/protocol/index.js';
import { NativeNotifier, type NativeNotification, type NativeNotificationOptions } from './native-notifier.js';

/** A system notification as Electron's Notification would be: shown, clicked, acted on, closed. */
class FakeNotification implements NativeNotification {
  shown = false;
  closed = false;
  private readonly listeners = new Map<string, ((details: { actionIndex: number }) => void)[]>();
  constructor(readonly options: NativeNotificationOptions) {}
  show(): void {
    this.shown = true;
  }
  close(): void {
    this.closed = true;
    this.emit('close');
  }
  on(event: string, listener: (details: { actionIndex: number }) => void): this {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return this;
  }
  emit(event: string, details = { actionIndex: -1 }): void {
    for (const listener of this.listeners.get(event) ?? []) listener(details);
  }
  /** The person presses the button labelled `text`. */
  press(text: string): void {
    const index = this.options.actions.findIndex((action) => action.text === text);
    if (index < 0) throw new Error(`no button ${text}: ${this.options.actions.map((a) => a.text).join(', ')}`);
    this.emit('action', { actionIndex: index });
  }
}

function setup(options: { mac?: boolean; focused?: boolean; preferences?: Partial<NotificationPreferences>; supported?: boolean } = {}) {
  const created: FakeNotification[] = [];
  const opened: DesktopOpenTarget[] = [];
  const answers: [string, string][] = [];
  const notifier = new NativeNotifier({
    isSupported: () => options.supported ?? true,
    create: (o) => {
      const notification = new FakeNotification(o);
      created.push(notification);
      return notification;
    },
    actionsShown: options.mac ?? false,
    windowFocused: () => options.focused ?? false,
    preferences: () => ({ ...DEFAULT_NOTIFICATION_PREFERENCES, ...options.preferences }),
    open: (target) => opened.push(target),
    answer: (requestId, decision) => answers.push([requestId, decision]),
  });
  return { notifier, created, opened, answers };
}

const running: Job = {
  id: 'job-1', kind: 'command', name: 'build', status: 'running', progress: null, detail: null, attempt: 0, maxAttempts: 0, maxRuns: 1, rerunIfLost: false, nextRetryAt: null,
  exitCode: null, threadId: null, scheduleId: null, scheduleNotify: null, createdAt: 1, updatedAt: 1, command: 'make', cwd: '/', runs: 1, activeMs: 1000, etaMs: null, agent: null,
};
const finished = jobNotice(running, { ...running, status: 'completed', updatedAt: 2 })!;
const shortCommand = approvalNotice({ requestId: 'approval-a', method: 'item/commandExecution/requestApproval', params: { threadId: 't', turnId: 'u', itemId: 'a', startedAtMs: 1, command: 'npm test' } });
const patch = approvalNotice({ requestId: 'approval-p', method: 'item/fileChange/requestApproval', params: { threadId: 't', turnId: 'u', itemId: 'p', startedAtMs: 1 } });

describe('native notifications', () => {
  it('shows a finished job while the window is not in front; a click opens its page', () => {
    const { notifier, created, opened } = setup();
    expect(notifier.notify(finished)).toBe('desktop');
    expect(created[0]).toMatchObject({ shown: true, options: { title: 'Finished: build', actions: [] } });
    created[0]!.emit('click');
    expect(opened).toEqual([{ view: 'job', jobId: 'job-1' }]);
    expect(notifier.showing).toEqual([]);
  });

  it('leaves it to the window when the window has focus, and to nobody when the kind is off', () => {
    expect(setup({ focused: true }).notifier.notify(finished)).toBe('toast');
    const off = setup({ preferences: { jobFinished: false } });
    expect(off.notifier.notify(finished)).toBe('none');
    expect(off.created).toEqual([]);
    expect(setup({ supported: false }).notifier.notify(finished)).toBe('none');
  });

  it('on macOS approves a short command from its buttons, and denies anything', () => {
    const { notifier, created, answers } = setup({ mac: true });
    notifier.notify(shortCommand);
    expect(created[0]!.options.actions.map((a) => a.text)).toEqual(['Approve', 'Deny', 'Open']);
    created[0]!.press('Approve');
    notifier.notify(patch);
    expect(created[1]!.options.actions.map((a) => a.text)).toEqual(['Deny', 'Open']);
    created[1]!.press('Deny');
    expect(answers).toEqual([
      ['approval-a', 'accept'],
      ['approval-p', 'decline'],
    ]);
  });

  it('elsewhere has no buttons: the text says to open Wheelhouse, and the notification stays until answered', () => {
    const { notifier, created } = setup({ mac: false });
    notifier.notify(shortCommand);
    expect(created[0]!.options).toMatchObject({ actions: [], timeoutType: 'never' });
    expect(created[0]!.options.body).toBe('npm test\nOpen Wheelhouse to answer.');
  });

  it('takes an approval away when it is answered elsewhere, and replaces a repeat instead of stacking it', () => {
    const { notifier, created } = setup();
    notifier.notify(shortCommand);
    notifier.notify(shortCommand);
    expect(created[0]!.closed).toBe(true);
    expect(notifier.showing).toEqual([shortCommand.tag]);
    notifier.withdraw(shortCommand.tag);
    expect(created[1]!.closed).toBe(true);
    expect(notifier.showing).toEqual([]);
  });
});
