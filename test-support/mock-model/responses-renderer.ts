import type {
  Response,
  ResponseCompletedEvent,
  ResponseCreatedEvent,
  ResponseFailedEvent,
  ResponseIncompleteEvent,
  ResponseInProgressEvent,
  ResponseOutputItem,
  ResponseStreamEvent,
  ResponseUsage,
} from 'openai/resources/responses/responses';
import {
  defaultFinishReason,
  splitText,
  type MockContentStep,
  type MockFinishReason,
  type MockToolCall,
  type MockUsage,
  type WireRenderer,
} from './script.js';

/** `output_text` is an SDK convenience getter, not part of the wire format. */
type WireResponse = Omit<Response, 'output_text'>;
type ResponseCarrying =
  | ResponseCreatedEvent
  | ResponseInProgressEvent
  | ResponseCompletedEvent
  | ResponseIncompleteEvent
  | ResponseFailedEvent;
type WireEvent =
  | Exclude<ResponseStreamEvent, ResponseCarrying>
  | (ResponseCarrying extends infer E ? (E extends ResponseCarrying ? Omit<E, 'response'> & { response: WireResponse } : never) : never);
type Unsequenced = WireEvent extends infer E ? (E extends WireEvent ? Omit<E, 'sequence_number'> : never) : never;

type OpenItem =
  | { readonly kind: 'message'; readonly id: string; readonly outputIndex: number; text: string }
  | {
      readonly kind: 'reasoning';
      readonly id: string;
      readonly outputIndex: number;
      readonly format: 'summary' | 'raw';
      text: string;
    };

export interface ResponsesRendererOptions {
  readonly id: string;
  readonly model: string;
  readonly instructions: string | null;
}

/**
 * Renders script steps as OpenAI Responses API stream events
 * (`event: <type>` + `data: {…, sequence_number}` frames) with the item
 * lifecycle the real API uses: output_item.added -> part/text deltas ->
 * *.done -> output_item.done, ending in response.completed / incomplete / failed.
 */
export class ResponsesRenderer implements WireRenderer {
  private readonly createdAt = Math.floor(Date.now() / 1000);
  private sequence = 0;
  private started = false;
  private open: OpenItem | null = null;
  private readonly output: ResponseOutputItem[] = [];
  private sawToolCalls = false;
  private itemCounter = 0;

  constructor(private readonly options: ResponsesRendererOptions) {}

  render(step: MockContentStep): readonly string[] {
    const frames = this.start();
    switch (step.type) {
      case 'text':
        frames.push(...this.appendText(step.text));
        break;
      case 'reasoning':
        frames.push(...this.appendReasoning(step.text, step.format ?? 'summary'));
        break;
      case 'toolCalls':
        this.sawToolCalls = true;
        frames.push(...this.closeOpen());
        for (const call of step.calls) frames.push(...this.toolCall(call));
        break;
      case 'finish':
        frames.push(...this.closeOpen(), ...this.finish(step.reason ?? defaultFinishReason(this.sawToolCalls), step.usage));
        break;
      case 'providerError':
        if (step.responsesAs === 'error') {
          frames.push(this.emit({ type: 'error', code: step.code ?? 'server_error', message: step.message, param: null }));
        } else {
          frames.push(
            this.emit({
              type: 'response.failed',
              response: this.response('failed', { error: { code: 'server_error', message: step.message } }),
            }),
          );
        }
        break;
      default: {
        const unreachable: never = step;
        throw new Error(`unknown content step ${JSON.stringify(unreachable)}`);
      }
    }
    return frames;
  }

  malformed(): string {
    return 'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":\n\n';
  }

  private start(): string[] {
    if (this.started) return [];
    this.started = true;
    return [
      this.emit({ type: 'response.created', response: this.response('in_progress') }),
      this.emit({ type: 'response.in_progress', response: this.response('in_progress') }),
    ];
  }

  private appendText(delta: string): string[] {
    const frames: string[] = [];
    if (this.open?.kind !== 'message') {
      frames.push(...this.closeOpen());
      const item: OpenItem = { kind: 'message', id: this.newId('msg'), outputIndex: this.output.length, text: '' };
      this.open = item;
      frames.push(
        this.emit({
          type: 'response.output_item.added',
          output_index: item.outputIndex,
          item: { type: 'message', id: item.id, status: 'in_progress', role: 'assistant', content: [] },
        }),
        this.emit({
          type: 'response.content_part.added',
          item_id: item.id,
          output_index: item.outputIndex,
          content_index: 0,
          part: { type: 'output_text', text: '', annotations: [] },
        }),
      );
    }
    const item = this.open;
    if (item?.kind !== 'message') throw new Error('unreachable: message item not open');
    item.text += delta;
    frames.push(
      this.emit({
        type: 'response.output_text.delta',
        item_id: item.id,
        output_index: item.outputIndex,
        content_index: 0,
        delta,
        logprobs: [],
      }),
    );
    return frames;
  }

  private appendReasoning(delta: string, format: 'summary' | 'raw'): string[] {
    const frames: string[] = [];
    if (this.open?.kind !== 'reasoning' || this.open.format !== format) {
      frames.push(...this.closeOpen());
      const item: OpenItem = { kind: 'reasoning', id: this.newId('rs'), outputIndex: this.output.length, format, text: '' };
      this.open = item;
      frames.push(
        this.emit({
          type: 'response.output_item.added',
          output_index: item.outputIndex,
          item: { type: 'reasoning', id: item.id, summary: [] },
        }),
        format === 'summary'
          ? this.emit({
              type: 'response.reasoning_summary_part.added',
              item_id: item.id,
              output_index: item.outputIndex,
              summary_index: 0,
              part: { type: 'summary_text', text: '' },
            })
          : this.emit({
              type: 'response.content_part.added',
              item_id: item.id,
              output_index: item.outputIndex,
              content_index: 0,
              part: { type: 'reasoning_text', text: '' },
            }),
      );
    }
    const item = this.open;
    if (item?.kind !== 'reasoning') throw new Error('unreachable: reasoning item not open');
    item.text += delta;
    frames.push(
      format === 'summary'
        ? this.emit({
            type: 'response.reasoning_summary_text.delta',
            item_id: item.id,
            output_index: item.outputIndex,
            summary_index: 0,
            delta,
          })
        : this.emit({
            type: 'response.reasoning_text.delta',
            item_id: item.id,
            output_index: item.outputIndex,
            content_index: 0,
            delta,
          }),
    );
    return frames;
  }

  private closeOpen(): string[] {
    const item = this.open;
    if (item === null) return [];
    this.open = null;
    const base = { item_id: item.id, output_index: item.outputIndex };
    if (item.kind === 'message') {
      const part = { type: 'output_text' as const, text: item.text, annotations: [] };
      return [
        this.emit({ type: 'response.output_text.done', ...base, content_index: 0, text: item.text, logprobs: [] }),
        this.emit({ type: 'response.content_part.done', ...base, content_index: 0, part }),
        this.itemDone(item.outputIndex, {
          type: 'message',
          id: item.id,
          status: 'completed',
          role: 'assistant',
          content: [part],
        }),
      ];
    }
    if (item.format === 'summary') {
      const part = { type: 'summary_text' as const, text: item.text };
      return [
        this.emit({ type: 'response.reasoning_summary_text.done', ...base, summary_index: 0, text: item.text }),
        this.emit({ type: 'response.reasoning_summary_part.done', ...base, summary_index: 0, part }),
        this.itemDone(item.outputIndex, { type: 'reasoning', id: item.id, summary: [part] }),
      ];
    }
    const part = { type: 'reasoning_text' as const, text: item.text };
    return [
      this.emit({ type: 'response.reasoning_text.done', ...base, content_index: 0, text: item.text }),
      this.emit({ type: 'response.content_part.done', ...base, content_index: 0, part }),
      this.itemDone(item.outputIndex, { type: 'reasoning', id: item.id, summary: [], content: [part] }),
    ];
  }

  private toolCall(call: MockToolCall): string[] {
    const id = this.newId('fc');
    const outputIndex = this.output.length;
    const base = { item_id: id, output_index: outputIndex };
    const namespace = call.namespace === undefined ? {} : { namespace: call.namespace };
    return [
      this.emit({
        type: 'response.output_item.added',
        output_index: outputIndex,
        item: { type: 'function_call', id, call_id: call.id, name: call.name, ...namespace, arguments: '', status: 'in_progress' },
      }),
      ...splitText(call.arguments, call.argumentChunks ?? 1).map((delta) =>
        this.emit({ type: 'response.function_call_arguments.delta', ...base, delta }),
      ),
      this.emit({ type: 'response.function_call_arguments.done', ...base, name: call.name, arguments: call.arguments }),
      this.itemDone(outputIndex, {
        type: 'function_call',
        id,
        call_id: call.id,
        name: call.name,
        ...namespace,
        arguments: call.arguments,
        status: 'completed',
      }),
    ];
  }

  private finish(reason: MockFinishReason, usage: MockUsage | undefined): string[] {
    const rendered = renderUsage(usage ?? { inputTokens: 0, outputTokens: 0 });
    if (reason === 'length') {
      return [
        this.emit({
          type: 'response.incomplete',
          response: this.response('incomplete', {
            incomplete_details: { reason: 'max_output_tokens' },
            usage: rendered,
          }),
        }),
      ];
    }
    return [this.emit({ type: 'response.completed', response: this.response('completed', { usage: rendered }) })];
  }

  private itemDone(outputIndex: number, item: ResponseOutputItem): string {
    this.output.push(item);
    return this.emit({ type: 'response.output_item.done', output_index: outputIndex, item });
  }

  private response(status: NonNullable<Response['status']>, extra: Partial<WireResponse> = {}): WireResponse {
    return {
      id: this.options.id,
      object: 'response',
      created_at: this.createdAt,
      status,
      error: null,
      incomplete_details: null,
      instructions: this.options.instructions,
      metadata: {},
      model: this.options.model,
      output: status === 'in_progress' ? [] : [...this.output],
      parallel_tool_calls: true,
      temperature: 1,
      tool_choice: 'auto',
      tools: [],
      top_p: 1,
      ...extra,
    };
  }

  private emit(event: Unsequenced): string {
    const data = { ...event, sequence_number: this.sequence++ };
    return `event: ${event.type}\ndata: ${JSON.stringify(data)}\n\n`;
  }

  private newId(prefix: string): string {
    this.itemCounter += 1;
    return `${prefix}_${this.options.id}_${this.itemCounter}`;
  }
}

function renderUsage(usage: MockUsage): ResponseUsage {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: usage.cachedInputTokens ?? 0, cache_write_tokens: 0 },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}
