import type { ActivityCounts } from './desktop-activity.js';

/** What happens to running jobs when Wheelhouse quits. */
export type JobsOnQuit = 'keep' | 'stop';

/**
 * The runtime's side of quitting: how many jobs run, and shutting down while
 * keeping them running in the background or stopping them first.
 */
export interface QuitRuntimePort {
  runningJobCount(): number;
  shutdown(choice: JobsOnQuit): Promise<void>;
}

/** The person's answer to the quit question. */
export type QuitAnswer = JobsOnQuit | 'cancel';

/** The native message box's options (Electron's MessageBoxOptions, reduced to what is used). */
export interface QuitQuestion {
  readonly type: 'question';
  readonly message: string;
  readonly detail: string;
  readonly buttons: readonly string[];
  readonly defaultId: number;
  readonly cancelId: number;
}

const ANSWERS: readonly QuitAnswer[] = ['keep', 'stop', 'cancel'];

/** The question asked when quitting with jobs running; its buttons map to ANSWERS by index. */
export function quitQuestion(runningJobs: number): QuitQuestion {
  const jobs = runningJobs === 1 ? 'A job is' : `${runningJobs} jobs are`;
  return {
    type: 'question',
    message: `${jobs} still running`,
    detail:
      'Keep running: they go on in the background and Wheelhouse shows their results when you open it again.\n' +
      'Stop and quit: they are stopped now; you can run them again later from Jobs.',
    buttons: ['Keep Running', 'Stop Jobs and Quit', 'Cancel'],
    defaultId: 0,
    cancelId: 2,
  };
}

/** The answer for the button at `index` (an unknown index, e.g. the box closed, is cancel). */
export function quitAnswer(index: number): QuitAnswer {
  return ANSWERS[index] ?? 'cancel';
}

/**
 * What closing the window does: hide it to the tray while jobs run or
 * approvals wait (Wheelhouse keeps working, the tray shows it), otherwise
 * close it. Quitting always closes.
 */
export function closeDecision(state: { readonly quitting: boolean; readonly counts: ActivityCounts }): 'hide' | 'close' {
  if (state.quitting) return 'close';
  return state.counts.runningJobs > 0 || state.counts.waitingApprovals > 0 ? 'hide' : 'close';
}

export interface QuitFlowParts {
  /** The runtime's port; null when no runtime is open (nothing to keep or stop). */
  readonly runtime: () => QuitRuntimePort | null;
  /** Shows the question (a native message box) and resolves with the index of the button chosen. */
  readonly ask: (question: QuitQuestion) => Promise<number>;
  /** Quits for real (Electron's app.quit(); the flow lets it through). */
  readonly quit: () => void;
  readonly logError: (message: string, error: unknown) => void;
}

/**
 * Quitting asks first when jobs run: keep them running in the background, or
 * stop them, or not quit after all. It runs once per quit (a second request
 * while the question is up is ignored), shuts the runtime down with the
 * answer, then lets the quit through.
 */
export class QuitFlow {
  private phase: 'idle' | 'asking' | 'stopping' | 'approved' = 'idle';

  constructor(private readonly parts: QuitFlowParts) {}

  /** Whether the quit may go ahead now (true only once the runtime is down). */
  get approved(): boolean {
    return this.phase === 'approved';
  }

  /** Whether a quit is under way (asked, stopping or approved): windows then close instead of hiding. */
  get quitting(): boolean {
    return this.phase === 'stopping' || this.phase === 'approved';
  }

  /**
   * Called from `before-quit`; returns whether that quit must be held
   * (preventDefault). `interactive` false (a signal, the system shutting
   * down) never asks: jobs are kept.
   */
  request(options: { readonly interactive: boolean }): boolean {
    if (this.phase === 'approved') return false;
    if (this.phase !== 'idle') return true;
    const runtime = this.parts.runtime();
    const running = runtime?.runningJobCount() ?? 0;
    if (!options.interactive || running === 0 || runtime === null) {
      void this.finish('keep');
      return true;
    }
    this.phase = 'asking';
    void this.parts.ask(quitQuestion(running)).then(
      (index) => {
        const answer = quitAnswer(index);
        if (answer === 'cancel') this.phase = 'idle';
        else void this.finish(answer);
      },
      (error: unknown) => {
        this.parts.logError('could not ask about running jobs', error);
        this.phase = 'idle';
      },
    );
    return true;
  }

  private async finish(choice: JobsOnQuit): Promise<void> {
    this.phase = 'stopping';
    try {
      await this.parts.runtime()?.shutdown(choice);
    } catch (error) {
      this.parts.logError('the runtime did not shut down cleanly', error);
    }
    this.phase = 'approved';
    this.parts.quit();
  }
}
