import type { Ajv } from 'ajv';
import { ServerRequestError, type McpServerElicitationRequestParams } from '../../shared/protocol/index.js';
import type { OutgoingSender } from '../runtime/outgoing/outgoing-sender.js';

/** The answer that goes back to the MCP server (MCP ElicitResult). */
export type ElicitationAnswer = {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean | string[]>;
  _meta?: Record<string, unknown>;
};

export interface ElicitationBrokerDeps {
  /** Asks every connected client that can answer; the first answer that fits the form wins. */
  readonly outgoing: Pick<OutgoingSender, 'request'>;
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
 * MCP elicitations waiting for the person: sent through the OutgoingSender to
 * every connected client (replayed to one that connects while it waits),
 * settled by the first valid answer (the others get `serverRequest/resolved`),
 * cancelled after a timeout; with no client to ask, cancelled at once.
 */
export class ElicitationBroker {
  private readonly live = new Map<string, LiveElicitation>();
  private nextId = 1;
  /** Loaded at the first accepted form: most sessions never see one. */
  private ajv: Promise<Ajv> | null = null;

  constructor(private readonly deps: ElicitationBrokerDeps) {}

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
      this.deps.outgoing
        .request('mcpServer/elicitation/request', params, {
          requestId,
          threadId: params.threadId,
          turnId: params.turnId,
          audience: { kind: 'every' },
          signal: live.withdrawn.signal,
          nobodyHere: 'fail',
          check: (response) => this.problemOf(requestId, params, response as { action: string; content?: unknown }),
        })
        .then(
          (response) =>
            this.finish(
              requestId,
              response.action !== 'accept'
                ? { action: response.action }
                : params.mode === 'url'
                  ? // A URL elicitation's accept carries nothing: the person went to the page; the server learns the rest there.
                    { action: 'accept' }
                  : { action: 'accept', content: (response.content ?? {}) as ElicitationAnswer['content'] },
            ),
          (error: unknown) => {
            // Withdrawn by us (settled already), or by the sender: nobody to ask, its turn ended, shutdown.
            const nobody = error instanceof ServerRequestError && error.reason === 'closed';
            this.finish(requestId, { action: 'cancel', _meta: reason(nobody ? 'no Wheelhouse client is connected to ask the person' : error instanceof Error ? error.message : String(error)) });
          },
        );
    });
  }

  /** Why an accepted answer is refused (content that does not fit the form), or null; the request keeps waiting after a refusal. */
  private async problemOf(requestId: string, params: McpServerElicitationRequestParams, response: { action: string; content?: unknown }): Promise<string | null> {
    if (response.action !== 'accept') return null;
    const problem = await this.checkContent(params, response.content);
    if (problem) this.deps.logWarning?.(`elicitation ${requestId} from ${params.serverName}: answer refused: ${problem}`);
    return problem;
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
