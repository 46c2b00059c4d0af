import type { Ajv } from 'ajv';
import type { McpServerElicitationRequestParams, McpServerElicitationRequestResponse } from '../../shared/protocol/index.js';

/** The answer that goes back to the MCP server (MCP ElicitResult). */
export type ElicitationAnswer = {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean | string[]>;
  _meta?: Record<string, unknown>;
};

/**
 * Sends one elicitation to the clients a carrier host reaches and returns how
 * many it reached. `signal` aborts once the elicitation is settled (answered
 * elsewhere, timed out, the server gave up), so the other copies are
 * withdrawn; `answer` is how a client's response comes back.
 */
export type ElicitationSender = (
  requestId: string,
  params: McpServerElicitationRequestParams,
  signal: AbortSignal,
  answer: (response: McpServerElicitationRequestResponse) => void,
) => number;

export interface ElicitationBrokerDeps {
  /** Tells every client that a request is settled (`serverRequest/resolved`). */
  readonly resolved: (threadId: string, requestId: string) => void;
  /** How long the person has to answer before the server gets `cancel`. */
  readonly timeoutMs: number;
  readonly logWarning?: (message: string) => void;
}

interface LiveElicitation {
  readonly params: McpServerElicitationRequestParams;
  readonly withdrawn: AbortController;
  settle(answer: ElicitationAnswer): void;
}

/** Why the server got an answer nobody chose; MCP has no reason field, `_meta` carries it. */
const reason = (text: string) => ({ 'wheelhouse/reason': text });

/**
 * MCP elicitations waiting for the person: sent to every connected client,
 * settled by the first valid answer (the others get `serverRequest/resolved`),
 * cancelled after a timeout; with no client to ask, cancelled at once.
 */
export class ElicitationBroker {
  private readonly live = new Map<string, LiveElicitation>();
  private readonly senders = new Set<ElicitationSender>();
  private nextId = 1;
  /** Loaded at the first accepted form: most sessions never see one. */
  private ajv: Promise<Ajv> | null = null;

  constructor(private readonly deps: ElicitationBrokerDeps) {}

  /** A carrier host's way to reach its clients. Returns its removal. */
  addSender(sender: ElicitationSender): () => void {
    this.senders.add(sender);
    return () => this.senders.delete(sender);
  }

  /** Sends what is waiting to one client that just connected. */
  resend(sender: ElicitationSender): void {
    for (const [requestId, live] of this.live) this.sendWith(sender, requestId, live);
  }

  pending(): Array<{ requestId: string; params: McpServerElicitationRequestParams }> {
    return [...this.live].map(([requestId, live]) => ({ requestId, params: live.params }));
  }

  /** Asks the clients; resolves with the answer for the server. `signal`: the server withdrew its request. */
  ask(params: McpServerElicitationRequestParams, signal: AbortSignal): Promise<ElicitationAnswer> {
    const requestId = `elicitation-${this.nextId++}`;
    return new Promise<ElicitationAnswer>((resolve) => {
      const timer = setTimeout(
        () => this.finish(requestId, { action: 'cancel', _meta: reason(`nobody answered within ${Math.round(this.deps.timeoutMs / 1000)} s`) }),
        this.deps.timeoutMs,
      );
      const onAbort = () => this.finish(requestId, { action: 'cancel', _meta: reason('the server withdrew the request') });
      const live: LiveElicitation = {
        params,
        withdrawn: new AbortController(),
        settle: (answer) => {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          resolve(answer);
        },
      };
      this.live.set(requestId, live);
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      let reached = 0;
      for (const sender of this.senders) reached += this.sendWith(sender, requestId, live);
      if (reached === 0) this.finish(requestId, { action: 'cancel', _meta: reason('no Wheelhouse client is connected to ask the person') });
    });
  }

  private sendWith(sender: ElicitationSender, requestId: string, live: LiveElicitation): number {
    return sender(requestId, live.params, live.withdrawn.signal, (response) => void this.answer(requestId, response));
  }

  /** A client's answer: the first valid one wins; content that does not fit the form is refused and the request keeps waiting. */
  private async answer(requestId: string, response: McpServerElicitationRequestResponse): Promise<void> {
    const live = this.live.get(requestId);
    if (!live) return;
    if (response.action !== 'accept') return this.finish(requestId, { action: response.action });
    const problem = await this.checkContent(live.params, response.content);
    if (problem) {
      this.deps.logWarning?.(`elicitation ${requestId} from ${live.params.serverName}: answer refused: ${problem}`);
      return;
    }
    this.finish(requestId, { action: 'accept', content: (response.content ?? {}) as ElicitationAnswer['content'] });
  }

  private async checkContent(params: McpServerElicitationRequestParams, content: unknown): Promise<string | null> {
    if (params.mode !== 'form') return null;
    if (typeof content !== 'object' || content === null || Array.isArray(content)) return 'content must be an object of the form’s fields';
    this.ajv ??= import('ajv').then((mod) => new (mod.Ajv ?? mod.default)({ strict: false, allErrors: true, validateSchema: false, logger: false }));
    const ajv = await this.ajv;
    // Codex's shapes allow null for absent keywords; JSON Schema does not.
    const schema = JSON.parse(JSON.stringify(params.requestedSchema, (key, value: unknown) => (value === null || key === '$schema' ? undefined : value)));
    const validate = ajv.compile({ ...schema, additionalProperties: false });
    return validate(content) ? null : ajv.errorsText(validate.errors, { dataVar: 'content' });
  }

  private finish(requestId: string, answer: ElicitationAnswer): void {
    const live = this.live.get(requestId);
    if (!live) return;
    this.live.delete(requestId);
    live.withdrawn.abort();
    this.deps.resolved(live.params.threadId, requestId);
    live.settle(answer);
  }

  /** At shutdown: every waiting request is cancelled. */
  close(): void {
    for (const requestId of [...this.live.keys()]) this.finish(requestId, { action: 'cancel', _meta: reason('Wheelhouse is shutting down') });
  }
}
