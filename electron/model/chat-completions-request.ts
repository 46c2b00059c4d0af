import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { ModelMessage, ModelRequest } from './types.js';

/** DeepSeek's thinking mode wants the reasoning of tool-calling turns sent back beside `content`. */
type AssistantMessage = ChatCompletionAssistantMessageParam & { reasoning_content?: string };

/** The Chat Completions body we send: OpenAI's shape plus DeepSeek's `reasoning_content`. */
export type ChatRequestBody = Omit<ChatCompletionCreateParamsStreaming, 'messages'> & {
  messages: Array<ChatCompletionMessageParam | AssistantMessage>;
};

/**
 * Builds the POST /chat/completions body. Key order is fixed and the
 * conversation comes last, so two requests of one thread are byte-identical
 * up to the new messages and provider prompt caches hit.
 *
 * History mapping: instructions -> first `system` message; assistant turns
 * carry `tool_calls`, and — when they made tool calls and have reasoning —
 * `reasoning_content` (DeepSeek answers 400 without it in thinking mode and
 * ignores it elsewhere; it is left off other assistant messages because the
 * older deepseek-reasoner rejected it there); tool results are `tool` messages.
 */
export function buildChatRequestBody(request: ModelRequest): ChatRequestBody {
  const messages: ChatRequestBody['messages'] = [];
  if (request.instructions !== '') messages.push({ role: 'system', content: request.instructions });
  for (const message of request.messages) messages.push(toChatMessage(message));
  return {
    model: request.model,
    stream: true,
    stream_options: { include_usage: true },
    ...(request.tools.length > 0 ? { tools: request.tools.map(toChatTool) } : {}),
    messages,
  };
}

function toChatTool(tool: ModelRequest['tools'][number]): ChatCompletionFunctionTool {
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: { ...tool.parameters } },
  };
}

function toChatMessage(message: ModelMessage): ChatCompletionMessageParam | AssistantMessage {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: message.content };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    case 'assistant': {
      const calls = message.toolCalls ?? [];
      if (calls.length === 0) return { role: 'assistant', content: message.content };
      return {
        role: 'assistant',
        content: message.content === '' ? null : message.content,
        ...(typeof message.reasoningContent === 'string' ? { reasoning_content: message.reasoningContent } : {}),
        tool_calls: calls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: call.arguments },
        })),
      };
    }
    default: {
      const unreachable: never = message;
      throw new Error(`unknown message role ${JSON.stringify(unreachable)}`);
    }
  }
}
