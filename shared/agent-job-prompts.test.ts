import { describe, expect, it } from 'vitest';
import { agentJobInstruction, CONTINUE_PROMPT, FIRST_TURN_PROMPT } from './agent-job-prompts.js';

describe('agent job instructions', () => {
  it('are told apart from what the person typed', () => {
    expect(agentJobInstruction(FIRST_TURN_PROMPT('Make the tests pass.\n\nAll of them.'))).toBe('start');
    expect(agentJobInstruction(CONTINUE_PROMPT)).toBe('continue');
    // Quoting the start of an instruction, or adding to it, is the person's own message.
    expect(agentJobInstruction('Work toward this goal until it is achieved:\n\nship it')).toBeNull();
    expect(agentJobInstruction(`${CONTINUE_PROMPT} And hurry.`)).toBeNull();
    expect(agentJobInstruction('Continue')).toBeNull();
  });
});
