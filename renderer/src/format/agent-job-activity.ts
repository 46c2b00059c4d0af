import { agentJobInstruction } from '../../../shared/agent-job-prompts.js';
import type { ConversationItem } from '../../../shared/protocol/index.js';

/** One thing a job's agent did, in words, for the job page. */
export interface ActivityStep {
  readonly id: string;
  readonly kind: 'command' | 'files' | 'tool' | 'message' | 'person';
  readonly text: string;
  /** What became of it, in a word or two; null while it runs, and for a reply (nothing became of it). */
  readonly result: string | null;
  readonly state: 'running' | 'done' | 'failed' | 'declined';
}

/** What the job page shows of an agent job's conversation. */
export interface JobActivity {
  /** The agent's newest reply (its final answer once the job has ended). */
  readonly answer: string | null;
  /** Its newest steps, oldest first. */
  readonly steps: readonly ActivityStep[];
}

const GOAL_TOOL_WORDS: Readonly<Record<string, string>> = {
  update_goal: 'Updated the goal',
  report_progress: 'Reported how far along it is',
  get_goal: 'Read the goal',
};

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

function stepOf(item: ConversationItem): ActivityStep | null {
  switch (item.type) {
    case 'commandExecution': {
      const state = item.status === 'inProgress' ? 'running' : item.status === 'completed' ? 'done' : item.status === 'declined' ? 'declined' : 'failed';
      const result =
        item.status === 'inProgress' ? null : item.status === 'declined' ? 'not run' : item.exitCode === 0 ? 'done' : item.exitCode === null ? 'failed' : `failed (exit code ${item.exitCode})`;
      return { id: item.id, kind: 'command', text: `Ran ${item.command}`, result, state };
    }
    case 'fileChange': {
      const state = item.status === 'inProgress' ? 'running' : item.status === 'completed' ? 'done' : item.status === 'declined' ? 'declined' : 'failed';
      const names = item.changes.map((change) => change.path.split('/').pop() ?? change.path);
      const text = names.length <= 2 ? `Changed ${names.join(' and ')}` : `Changed ${plural(names.length, 'file', 'files')}`;
      return { id: item.id, kind: 'files', text, result: state === 'running' ? null : state === 'done' ? 'done' : state === 'declined' ? 'not changed' : 'failed', state };
    }
    case 'mcpToolCall':
    case 'dynamicToolCall': {
      const state = item.status === 'inProgress' ? 'running' : item.status === 'completed' ? 'done' : 'failed';
      const text = item.type === 'mcpToolCall' ? `Used ${item.tool} from ${item.server}` : (GOAL_TOOL_WORDS[item.tool] ?? `Used ${item.tool}`);
      return { id: item.id, kind: 'tool', text, result: state === 'running' ? null : state === 'done' ? 'done' : 'failed', state };
    }
    case 'userMessage': {
      const text = item.content.map((part) => part.text).join('\n');
      // Wheelhouse's own instructions are plumbing; a message the person typed into the job's conversation is not.
      if (agentJobInstruction(text)) return null;
      return { id: item.id, kind: 'person', text: `You wrote: ${text.length > 120 ? `${text.slice(0, 119)}…` : text}`, result: 'sent', state: 'done' };
    }
    case 'agentMessage':
      return item.text.trim() === '' ? null : { id: item.id, kind: 'message', text: 'Replied', result: null, state: 'done' };
    case 'reasoning':
    case 'forkMarker':
    case 'enteredReviewMode':
    case 'exitedReviewMode':
      return null;
    default: {
      const unknown: never = item;
      return unknown;
    }
  }
}

/** The answer and the last `limit` steps of a job's conversation. */
export function jobActivity(items: readonly ConversationItem[], limit = 8): JobActivity {
  let answer: string | null = null;
  const steps: ActivityStep[] = [];
  for (const item of items) {
    if (item.type === 'agentMessage' && item.text.trim() !== '') answer = item.text;
    const step = stepOf(item);
    if (step) steps.push(step);
  }
  return { answer, steps: steps.slice(-limit) };
}
