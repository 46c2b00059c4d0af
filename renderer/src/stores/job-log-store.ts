import { createStore, type StoreApi } from 'zustand/vanilla';
import { JOB_LOG_MAX_LIMIT, JOB_LOG_SEARCH_MAX_MATCHES } from '../../../shared/protocol/methods/job.js';
import type { ClientMethod, NotificationMethod, NotificationParamsOf, ParamsOf, ResultOf } from '../../../shared/protocol/registry.js';
import { stripAnsi } from '../format/ansi.js';
import { describeRequestError } from '../format/request-errors.js';

/** Lines fetched together (the runtime keeps an offset every 256 lines, so a page starts where it can read at once). */
export const LOG_PAGE_LINES = 256;
/** Pages kept; the ones read longest ago go first (64 × 256 lines). */
const PAGES_KEPT = 64;
/** Lines fetched from the end while the view follows the output. */
const TAIL_LINES = 200;
/** Live output refreshes the view at most this often. */
const REFRESH_GAP_MS = 100;

export interface JobLogSearch {
  readonly query: string;
  /** Lines that match, ascending. */
  readonly matches: readonly number[];
  /** Index in `matches` of the one shown; -1 when none is. */
  readonly current: number;
  /** Bumped each time the view should go to the current match (found first, next, previous). */
  readonly shown: number;
  readonly searching: boolean;
  /** The search stopped at its cap: there are more than `matches`. */
  readonly truncated: boolean;
}

export interface JobLogViewState {
  readonly lineCount: number;
  readonly bytes: number;
  /** The run has ended: no more output will come. */
  readonly ended: boolean;
  /** The first answer has arrived. */
  readonly loaded: boolean;
  /** Why the log could not be read; null while it can. */
  readonly error: string | null;
  /** Bumped whenever fetched lines change, so rows read the cache again. */
  readonly version: number;
  readonly search: JobLogSearch;
}

/** What the log view needs of the runtime client. */
export interface JobLogClient {
  request<M extends ClientMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>>;
  on<N extends NotificationMethod>(method: N, listener: (params: NotificationParamsOf<N>) => void): () => void;
}

interface Page {
  lines: string[];
  clipped: Set<number>;
}

const NO_SEARCH: JobLogSearch = { query: '', matches: [], current: -1, shown: 0, searching: false, truncated: false };
/** Lines searched by the first request; each next one searches twice as many, up to the most. A long log's matches show as they are found. */
const FIRST_SEARCH_SLICE = 20_000;
const MOST_SEARCH_SLICE = 320_000;

/**
 * One run's output for the log view, without holding the log: lines are
 * fetched by number a page at a time around what is on screen (a bounded
 * cache), the line count follows live output (one request at a time, at most
 * every REFRESH_GAP_MS), and search runs in the runtime, continuing over new
 * lines as they come.
 */
export class JobLogSource {
  readonly store: StoreApi<JobLogViewState>;
  private readonly pages = new Map<number, Page>();
  private readonly pending = new Set<number>();
  private refreshing = false;
  private refreshAgain = false;
  private refreshTimer: ReturnType<typeof setTimeout> | null = null;
  private lastRefreshAt = -Infinity;
  private following = true;
  private searchGeneration = 0;
  private searchedTo = 0;
  private disposed = false;
  private readonly offs: (() => void)[];

  constructor(
    private readonly client: JobLogClient,
    readonly jobId: string,
    readonly attempt: number,
  ) {
    this.store = createStore<JobLogViewState>()(() => ({ lineCount: 0, bytes: 0, ended: false, loaded: false, error: null, version: 0, search: NO_SEARCH }));
    this.offs = [
      client.on('job/output/delta', (params) => {
        if (params.jobId === jobId && params.attempt === attempt) this.refresh();
      }),
      // A run's end comes as a job update, often after its last output: the view learns it has ended.
      client.on('job/updated', ({ job }) => {
        if (job.id === jobId && !this.store.getState().ended) this.refresh();
      }),
    ];
    this.refresh();
  }

  /** A fetched line, raw; undefined while it is not fetched. */
  line(index: number): string | undefined {
    return this.pages.get(Math.floor(index / LOG_PAGE_LINES))?.lines[index % LOG_PAGE_LINES];
  }

  /** True when the line shown is cut at the runtime's per-line cap. */
  isClipped(index: number): boolean {
    return this.pages.get(Math.floor(index / LOG_PAGE_LINES))?.clipped.has(index) ?? false;
  }

  /** Whether the view sits at the end (then the tail is fetched with each refresh). */
  setFollowing(following: boolean): void {
    this.following = following;
  }

  /** Fetches the pages holding lines [from, to) that are missing or short. */
  want(from: number, to: number): void {
    const { lineCount } = this.store.getState();
    const last = Math.min(to, lineCount) - 1;
    for (let page = Math.max(0, Math.floor(from / LOG_PAGE_LINES)); page * LOG_PAGE_LINES <= last; page += 1) {
      const start = page * LOG_PAGE_LINES;
      const have = this.pages.get(page)?.lines.length ?? 0;
      const full = Math.min(LOG_PAGE_LINES, lineCount - start);
      if (have < full && !this.pending.has(page)) void this.fetchPage(page, start + have, full - have);
    }
  }

  /** Asks the runtime how long the log is now (and for its last lines); coalesced while one is in flight. */
  refresh(): void {
    if (this.disposed) return;
    if (this.refreshing) {
      this.refreshAgain = true;
      return;
    }
    if (this.refreshTimer) return;
    const wait = Math.max(0, this.lastRefreshAt + REFRESH_GAP_MS - performance.now());
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = null;
      void this.refreshNow();
    }, wait);
  }

  private async refreshNow(): Promise<void> {
    this.refreshing = true;
    this.lastRefreshAt = performance.now();
    try {
      const result = await this.client.request('job/log/lines', { jobId: this.jobId, attempt: this.attempt, count: this.following ? TAIL_LINES : 1 });
      if (this.disposed) return;
      const before = this.store.getState();
      if (result.bytes !== before.bytes && before.lineCount > 0) this.forgetLine(before.lineCount - 1);
      this.put(result.fromLine, result.lines, result.clipped);
      this.store.setState((state) => ({ lineCount: result.lineCount, bytes: result.bytes, ended: result.ended, loaded: true, error: null, version: state.version + 1 }));
      const { search } = this.store.getState();
      // New lines are searched as they come (the runtime searches complete lines only).
      if (search.query && !search.searching && !search.truncated && result.lineCount > this.searchedTo) void this.runSearch(search.query, this.searchedTo, false);
    } catch (error) {
      if (!this.disposed) this.store.setState({ error: describeRequestError(error).message, loaded: true });
    } finally {
      this.refreshing = false;
      if (this.refreshAgain) {
        this.refreshAgain = false;
        this.refresh();
      }
    }
  }

  private async fetchPage(page: number, fromLine: number, count: number): Promise<void> {
    this.pending.add(page);
    try {
      const result = await this.client.request('job/log/lines', { jobId: this.jobId, attempt: this.attempt, fromLine, count });
      if (this.disposed) return;
      this.put(result.fromLine, result.lines, result.clipped);
      this.store.setState((state) => ({ version: state.version + 1, lineCount: Math.max(state.lineCount, result.lineCount) }));
    } catch (error) {
      if (!this.disposed) this.store.setState({ error: describeRequestError(error).message });
    } finally {
      this.pending.delete(page);
    }
  }

  /** Stores lines from `fromLine` into their pages (a page only grows from its end: a gap is left unfetched). */
  private put(fromLine: number, lines: readonly string[], clipped: readonly number[]): void {
    const clippedSet = new Set(clipped);
    for (let i = 0; i < lines.length; ) {
      const index = fromLine + i;
      const pageNo = Math.floor(index / LOG_PAGE_LINES);
      const start = pageNo * LOG_PAGE_LINES;
      let page = this.pages.get(pageNo);
      if (page) this.pages.delete(pageNo);
      else page = { lines: [], clipped: new Set() };
      // Most recently used last.
      this.pages.set(pageNo, page);
      const take = Math.min(lines.length - i, start + LOG_PAGE_LINES - index);
      if (index - start <= page.lines.length) {
        for (let k = 0; k < take; k += 1) {
          page.lines[index - start + k] = lines[i + k]!;
          if (clippedSet.has(index + k)) page.clipped.add(index + k);
          else page.clipped.delete(index + k);
        }
      }
      i += take;
    }
    while (this.pages.size > PAGES_KEPT) this.pages.delete(this.pages.keys().next().value!);
  }

  /** The last line may have been unfinished: it is fetched again. */
  private forgetLine(index: number): void {
    const page = this.pages.get(Math.floor(index / LOG_PAGE_LINES));
    if (page && page.lines.length > index % LOG_PAGE_LINES) page.lines.length = index % LOG_PAGE_LINES;
  }

  /**
   * Searches the whole run for `query` (empty: no search), slice by slice;
   * the first match at or after line `near` becomes current as soon as it is
   * found (the first of all when none is past `near`). Resolves when the search is done.
   */
  async search(query: string, near = 0): Promise<void> {
    if (query === '') {
      this.searchGeneration += 1;
      this.store.setState({ search: NO_SEARCH });
      return;
    }
    await this.runSearch(query, 0, true, near);
  }

  /**
   * Searches from `from` to the end in slices, appending matches as they come.
   * A fresh search near line `near` goes from there to the end first, then
   * wraps round from the top, so the match to show is found soonest.
   */
  private async runSearch(query: string, from: number, fresh: boolean, near = 0): Promise<void> {
    const generation = fresh ? ++this.searchGeneration : this.searchGeneration;
    this.store.setState((state) => ({ search: fresh ? { ...NO_SEARCH, query, shown: state.search.shown, searching: true } : { ...state.search, searching: true } }));
    const start = fresh ? near : from;
    /** Matches of the wrapped part (above `near`) so far: they go before the others. */
    let above = 0;
    let slice = FIRST_SEARCH_SLICE;
    try {
      for (const [first, end, wrapped] of start > 0 && fresh ? ([[start, Infinity, false], [0, start, true]] as const) : ([[start, Infinity, false]] as const)) {
        for (let at = first; at < end; ) {
          const room = JOB_LOG_SEARCH_MAX_MATCHES - this.store.getState().search.matches.length;
          if (room <= 0) {
            this.store.setState(({ search }) => ({ search: { ...search, truncated: true } }));
            return;
          }
          const to = Math.min(end, at + slice);
          slice = Math.min(MOST_SEARCH_SLICE, slice * 2);
          const result = await this.client.request('job/log/search', { jobId: this.jobId, attempt: this.attempt, query, fromLine: at, toLine: to, maxMatches: room });
          if (this.disposed || generation !== this.searchGeneration) return;
          // Live output is searched on from the end of the first part.
          if (!wrapped) this.searchedTo = result.searchedTo;
          const found = result.lines;
          this.store.setState(({ search }) => {
            const matches = wrapped ? [...search.matches.slice(0, above), ...found, ...search.matches.slice(above)] : [...search.matches, ...found];
            let { current, shown } = search;
            if (wrapped && current !== -1) current += found.length;
            if (fresh && current === -1 && found.length > 0) {
              current = wrapped ? above : matches.length - found.length;
              shown += 1;
            }
            return { search: { ...search, matches, current, shown, truncated: search.truncated || result.truncated } };
          });
          if (wrapped) above += found.length;
          if (result.truncated || result.searchedTo < to) break;
          at = result.searchedTo;
        }
      }
    } catch (error) {
      if (this.disposed || generation !== this.searchGeneration) return;
      this.store.setState({ error: describeRequestError(error).message });
    } finally {
      if (!this.disposed && generation === this.searchGeneration) this.store.setState(({ search }) => ({ search: { ...search, searching: false } }));
    }
  }

  /** Moves to the next (1) or previous (-1) match, wrapping around. */
  step(direction: 1 | -1): void {
    const { search } = this.store.getState();
    if (search.matches.length === 0) return;
    const current = (search.current + direction + search.matches.length) % search.matches.length;
    this.store.setState({ search: { ...search, current, shown: search.shown + 1 } });
  }

  /**
   * The whole log as the view shows it (escapes removed, each line's last
   * rewrite), read from the runtime a megabyte at a time: a file to save.
   */
  async plainText(onProgress: (fraction: number) => void = () => undefined): Promise<Blob> {
    const parts: string[] = [];
    let offset = 0;
    let carry = '';
    for (;;) {
      const page = await this.client.request('job/log', { jobId: this.jobId, attempt: this.attempt, offset, limit: JOB_LOG_MAX_LIMIT });
      const text = carry + page.data;
      const end = text.lastIndexOf('\n');
      const done = page.nextOffset >= page.size || page.nextOffset === offset;
      const whole = done ? text : text.slice(0, end + 1);
      carry = done ? '' : text.slice(end + 1);
      if (whole) parts.push(stripAnsi(whole));
      onProgress(page.size === 0 ? 1 : Math.min(1, page.nextOffset / page.size));
      if (done) break;
      offset = page.nextOffset;
    }
    return new Blob(parts, { type: 'text/plain;charset=utf-8' });
  }

  dispose(): void {
    this.disposed = true;
    for (const off of this.offs) off();
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
  }
}
