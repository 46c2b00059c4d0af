import { describe, expect, it } from 'vitest';
import { closeDecision, quitAnswer, QuitFlow, quitQuestion, type JobsOnQuit, type QuitQuestion } from './quit-flow.js';

/** A quit flow whose question is answered by the test, and whose runtime records how it was shut down. */
function setup(running: number, options: { runtime?: boolean } = {}) {
  const shutdowns: JobsOnQuit[] = [];
  const questions: QuitQuestion[] = [];
  let answer: (index: number) => void = () => undefined;
  let quits = 0;
  let quitSeen: () => void = () => undefined;
  const quitted = new Promise<void>((resolve) => (quitSeen = resolve));
  const flow = new QuitFlow({
    runtime: () =>
      options.runtime === false
        ? null
        : {
            runningJobCount: () => running,
            shutdown: async (choice) => {
              shutdowns.push(choice);
            },
          },
    ask: (question) => {
      questions.push(question);
      return new Promise((resolve) => (answer = resolve));
    },
    quit: () => {
      quits += 1;
      quitSeen();
    },
    logError: (message, error) => {
      throw new Error(`${message}: ${String(error)}`);
    },
  });
  return { flow, shutdowns, questions, answer: (index: number) => answer(index), quitted, quits: () => quits };
}

describe('quitting', () => {
  it('quits without a question when no job runs, after the runtime is down', async () => {
    const { flow, shutdowns, questions, quitted } = setup(0);
    expect(flow.request({ interactive: true })).toBe(true);
    await quitted;
    expect(questions).toEqual([]);
    expect(shutdowns).toEqual(['keep']);
    expect(flow.approved).toBe(true);
    expect(flow.request({ interactive: true })).toBe(false);
  });

  it('asks what to do with running jobs, and stops them when told to', async () => {
    const { flow, shutdowns, questions, answer, quitted } = setup(2);
    expect(flow.request({ interactive: true })).toBe(true);
    expect(questions[0]).toMatchObject({ message: '2 jobs are still running', buttons: ['Keep Running', 'Stop Jobs and Quit', 'Cancel'], cancelId: 2 });
    // Cmd+Q again while the question is up: still held, no second question.
    expect(flow.request({ interactive: true })).toBe(true);
    expect(questions).toHaveLength(1);
    answer(1);
    await quitted;
    expect(shutdowns).toEqual(['stop']);
  });

  it('keeps them running in the background when told to', async () => {
    const { flow, shutdowns, answer, quitted } = setup(1);
    flow.request({ interactive: true });
    answer(0);
    await quitted;
    expect(shutdowns).toEqual(['keep']);
  });

  it('does not quit when cancelled, and asks again next time', async () => {
    const { flow, shutdowns, questions, answer, quits } = setup(1);
    flow.request({ interactive: true });
    answer(2);
    await Promise.resolve();
    await Promise.resolve();
    expect(shutdowns).toEqual([]);
    expect(quits()).toBe(0);
    expect(flow.quitting).toBe(false);
    flow.request({ interactive: true });
    expect(questions).toHaveLength(2);
  });

  it('never asks when the system or a signal quits: jobs are kept', async () => {
    const { flow, shutdowns, questions, quitted } = setup(3);
    flow.request({ interactive: false });
    await quitted;
    expect(questions).toEqual([]);
    expect(shutdowns).toEqual(['keep']);
  });

  it('quits at once when no runtime is open', async () => {
    const { flow, quitted } = setup(0, { runtime: false });
    flow.request({ interactive: true });
    await quitted;
    expect(flow.approved).toBe(true);
  });

  it('words one job in the singular, and reads an unknown button as cancel', () => {
    expect(quitQuestion(1).message).toBe('A job is still running');
    expect(quitAnswer(7)).toBe('cancel');
  });
});

describe('closing the window', () => {
  it('hides it to the tray while jobs run or approvals wait, and closes it otherwise or when quitting', () => {
    expect(closeDecision({ quitting: false, counts: { runningJobs: 1, waitingApprovals: 0 } })).toBe('hide');
    expect(closeDecision({ quitting: false, counts: { runningJobs: 0, waitingApprovals: 2 } })).toBe('hide');
    expect(closeDecision({ quitting: false, counts: { runningJobs: 0, waitingApprovals: 0 } })).toBe('close');
    expect(closeDecision({ quitting: true, counts: { runningJobs: 4, waitingApprovals: 1 } })).toBe('close');
  });
});
