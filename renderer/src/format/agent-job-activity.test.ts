import { describe, expect, it } from 'vitest';
import { CONTINUE_PROMPT, FIRST_TURN_PROMPT } from '../../../shared/agent-job-prompts.js';
import type { ConversationItem } from '../../../shared/protocol/index.js';
import { jobActivity } from './agent-job-activity.js';

const base = { startedAtMs: 1, completedAtMs: 2 };
const user = (id: string, text: string) => ({ ...base, id, type: 'userMessage', content: [{ type: 'text', text }], clientId: null }) as unknown as ConversationItem;
const reply = (id: string, text: string) => ({ ...base, id, type: 'agentMessage', text }) as unknown as ConversationItem;
const command = (id: string, cmd: string, status: string, exitCode: number | null) =>
  ({ ...base, id, type: 'commandExecution', command: cmd, status, exitCode }) as unknown as ConversationItem;

describe("an agent job's activity", () => {
  it("leaves out Wheelhouse's instructions, keeps what the person wrote, and ends with the newest reply as the answer", () => {
    const activity = jobActivity([
      user('u1', FIRST_TURN_PROMPT('Make the tests pass.')),
      command('c1', 'npm test', 'failed', 1),
      reply('a1', 'One test fails; fixing it.'),
      user('u2', CONTINUE_PROMPT),
      command('c2', 'npm test', 'completed', 0),
      user('u3', 'Also update the changelog.'),
      command('c3', 'npm run lint', 'inProgress', null),
      reply('a2', 'All tests pass now.'),
    ]);
    expect(activity.answer).toBe('All tests pass now.');
    expect(activity.steps.map((step) => [step.text, step.result])).toEqual([
      ['Ran npm test', 'failed (exit code 1)'],
      ['Replied', null],
      ['Ran npm test', 'done'],
      ['You wrote: Also update the changelog.', 'sent'],
      ['Ran npm run lint', null],
      ['Replied', null],
    ]);
  });

  it('keeps only the newest steps', () => {
    const items = Array.from({ length: 20 }, (_, i) => command(`c${i}`, `step ${i}`, 'completed', 0));
    expect(jobActivity(items, 3).steps.map((step) => step.text)).toEqual(['Ran step 17', 'Ran step 18', 'Ran step 19']);
    expect(jobActivity([]).answer).toBeNull();
  });
});
