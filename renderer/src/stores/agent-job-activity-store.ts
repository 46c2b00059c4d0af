import type { ClientMethod, NotificationMethod, NotificationParamsOf, ParamsOf, ResultOf } from '../../../shared/protocol/index.js';
import { jobActivity, type JobActivity } from '../format/agent-job-activity.js';

export interface JobThreadClient {
  request<M extends ClientMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>>;
  on<N extends NotificationMethod>(method: N, listener: (params: NotificationParamsOf<N>) => void): () => void;
}

/** What the job page knows of the conversation so far. */
export type JobThreadState = { readonly status: 'loading' } | { readonly status: 'ready'; readonly activity: JobActivity } | { readonly status: 'failed'; readonly message: string };

/**
 * Follows an agent job's conversation for its page: read with thread/read,
 * read again when one of its items starts or finishes or a turn ends (one
 * read at a time; changes during a read bring one more).
 */
export class JobThreadWatcher {
  private reading = false;
  private again = false;
  private disposed = false;
  private readonly offs: (() => void)[];

  constructor(
    private readonly client: JobThreadClient,
    private readonly threadId: string,
    private readonly onChange: (state: JobThreadState) => void,
  ) {
    const mine = (params: { threadId: string }) => {
      if (params.threadId === threadId) this.read();
    };
    this.offs = [client.on('item/started', mine), client.on('item/completed', mine), client.on('turn/completed', mine)];
    onChange({ status: 'loading' });
    this.read();
  }

  private read(): void {
    if (this.disposed) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = true;
    this.client
      .request('thread/read', { threadId: this.threadId })
      .then(
        (result) => {
          if (!this.disposed) this.onChange({ status: 'ready', activity: jobActivity(result.items) });
        },
        (error: unknown) => {
          if (!this.disposed) this.onChange({ status: 'failed', message: error instanceof Error ? error.message : String(error) });
        },
      )
      .finally(() => {
        this.reading = false;
        if (this.again) {
          this.again = false;
          this.read();
        }
      });
  }

  dispose(): void {
    this.disposed = true;
    for (const off of this.offs) off();
  }
}
