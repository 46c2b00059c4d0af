import { lookupKnownModel } from './known-models.js';
import type { ModelMessage, ModelRequest } from './types.js';

/** Input items of the Responses API as we send them (no item ids: with store:false none exist server-side). */
export type ResponsesInputItem =
  | { type: 'message'; role: 'user'; content: Array<{ type: 'input_text'; text: string }> }
  | { type: 'message'; role: 'assistant'; content: Array<{ type: 'output_text'; text: string }> }
  | { type: 'function_call'; call_id: string; name: string; arguments: string }
  | { type: 'function_call_output'; call_id: string; output: string };

export interface ResponsesFunctionTool {
  type: 'function';
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  strict: false;
}

/** The POST /responses body. */
export interface ResponsesRequestBody {
  model: string;
  instructions: string;
  tools?: ResponsesFunctionTool[];
  /** Asked of known reasoning models so their reasoning summaries stream. */
  reasoning?: { summary: 'auto' };
  store: false;
  stream: true;
  input: ResponsesInputItem[];
}

/**
 * Builds the POST /responses body. Key order is fixed and `input` comes
 * last, so requests of one thread share a byte-identical prefix. History:
 * user -> message/input_text; assistant -> message/output_text then its
 * function_call items; tool results -> function_call_output. `store: false`
 * keeps nothing server-side. Reasoning items are not replayed (we do not
 * keep encrypted reasoning), so reasoning models re-think after tool calls.
 */
export function buildResponsesRequestBody(request: ModelRequest): ResponsesRequestBody {
  return {
    model: request.model,
    instructions: request.instructions,
    ...(request.tools.length > 0
      ? {
          tools: request.tools.map((tool) => ({
            type: 'function' as const,
            name: tool.name,
            description: tool.description,
            parameters: { ...tool.parameters },
            strict: false as const,
          })),
        }
      : {}),
    ...(lookupKnownModel(request.model)?.reasoning ? { reasoning: { summary: 'auto' as const } } : {}),
    store: false,
    stream: true,
    input: request.messages.flatMap(toInputItems),
  };
}

function toInputItems(message: ModelMessage): ResponsesInputItem[] {
  switch (message.role) {
    case 'user':
      return [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: message.content }] }];
    case 'tool':
      return [{ type: 'function_call_output', call_id: message.toolCallId, output: message.content }];
    case 'assistant': {
      const items: ResponsesInputItem[] = [];
      if (message.content !== '') {
        items.push({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: message.content }] });
      }
      for (const call of message.toolCalls ?? []) {
        items.push({ type: 'function_call', call_id: call.id, name: call.name, arguments: call.arguments });
      }
      return items;
    }
    default: {
      const unreachable: never = message;
      throw new Error(`unknown message role ${JSON.stringify(unreachable)}`);
    }
  }
}
