import type { ConversationItem } from '../../../shared/protocol/index.js';
import { modelToolName } from '../../mcp/tool-names.js';
import type { ModelMessage, ModelToolCall } from '../../model/types.js';
import { mcpItemOutput } from './mcp-tool-call.js';

interface AssistantStep {
  reasoning: string;
  text: string;
  calls: ModelToolCall[];
  results: ModelMessage[];
}

/**
 * Rebuilds the model conversation from stored items. One assistant step is
 * the reasoning, text and tool calls of one model reply, followed by the tool
 * results; a step's reasoning is kept so DeepSeek thinking models get their
 * `reasoning_content` back on tool-calling messages.
 */
export function buildModelHistory(items: readonly ConversationItem[]): ModelMessage[] {
  const messages: ModelMessage[] = [];
  const state: { step: AssistantStep | null } = { step: null };

  const flush = () => {
    const step = state.step;
    if (!step) return;
    if (step.text.length > 0 || step.calls.length > 0) {
      messages.push({
        role: 'assistant',
        content: step.text,
        reasoningContent: step.calls.length > 0 && step.reasoning.length > 0 ? step.reasoning : null,
        ...(step.calls.length > 0 ? { toolCalls: step.calls } : {}),
      });
      messages.push(...step.results);
    }
    state.step = null;
  };
  const current = (): AssistantStep => (state.step ??= { reasoning: '', text: '', calls: [], results: [] });
  const replyAfterTools = () => (state.step?.calls.length ?? 0) > 0;

  for (const item of items) {
    switch (item.type) {
      case 'userMessage':
        flush();
        messages.push({ role: 'user', content: item.content.map((c) => c.text).join('\n') });
        break;
      case 'reasoning':
        // A reply after tool results starts a new step.
        if (replyAfterTools()) flush();
        current().reasoning += item.content.join('');
        break;
      case 'agentMessage':
        if (replyAfterTools()) flush();
        current().text += item.text;
        break;
      case 'dynamicToolCall': {
        const s = current();
        const args = typeof item.arguments === 'string' ? item.arguments : JSON.stringify(item.arguments ?? {});
        s.calls.push({ id: item.callId, name: item.tool, arguments: args });
        s.results.push({
          role: 'tool',
          toolCallId: item.callId,
          name: item.tool,
          content: item.output ?? 'The tool did not finish (the turn was stopped).',
        });
        break;
      }
      case 'commandExecution': {
        const s = current();
        const content = item.modelOutput ?? 'The command did not finish (the turn was stopped).';
        // A run again without the sandbox is a second item of the same call: its answer (which tells the whole story) replaces the first.
        const earlier = s.results.findIndex((result) => result.role === 'tool' && result.toolCallId === item.callId);
        if (earlier >= 0) {
          s.results[earlier] = { role: 'tool', toolCallId: item.callId, name: 'exec_command', content };
          break;
        }
        const args = typeof item.arguments === 'string' ? item.arguments : JSON.stringify(item.arguments ?? {});
        s.calls.push({ id: item.callId, name: 'exec_command', arguments: args });
        s.results.push({ role: 'tool', toolCallId: item.callId, name: 'exec_command', content });
        break;
      }
      case 'fileChange': {
        const s = current();
        const args = typeof item.arguments === 'string' ? item.arguments : JSON.stringify(item.arguments ?? {});
        s.calls.push({ id: item.callId, name: 'apply_patch', arguments: args });
        s.results.push({
          role: 'tool',
          toolCallId: item.callId,
          name: 'apply_patch',
          content: item.modelOutput ?? 'The patch was not applied (the turn was stopped).',
        });
        break;
      }
      case 'mcpToolCall': {
        // The item id stands in for the provider's call id: both halves are rebuilt from this one item.
        const s = current();
        const name = modelToolName({ server: item.server, tool: item.tool });
        s.calls.push({ id: item.id, name, arguments: JSON.stringify(item.arguments ?? {}) });
        s.results.push({ role: 'tool', toolCallId: item.id, name, content: mcpItemOutput(item) });
        break;
      }
      case 'forkMarker':
        break;
    }
  }
  flush();
  return messages;
}
