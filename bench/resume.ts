/**
 * thread/resume of long threads: 1,000 and 2,000 turns written straight into
 * the store (user message, reasoning, reply, tool call per turn), then the
 * time to load each, median of several runs: in-process (the handler alone)
 * and over stdio from a real `wheelhouse app-server` child (request written,
 * whole response line read back, not parsed). Linear growth is the goal.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { RequestContext } from '../electron/runtime/context.js';
import type { Runtime } from '../electron/host/runtime.js';
import { spawnTracked } from '../test-support/child-process.js';
import { cliBin, repoRoot } from '../test-support/paths.js';
import { createTestRuntime } from '../test-support/test-runtime.js';
import { requester, stdioChannel } from './raw-channel.js';
import { ms, quantile } from './stats.js';
import { ITEM_CODEX_NULLS, textInput } from '../shared/protocol/index.js';

const ctx: RequestContext = { session: { connectionId: 'bench', carrier: 'in-process', clientInfo: null, optOut: new Set() } };

/** A thread in `cwd` (default: the runtime's) with `turns` finished turns written straight into the store. */
export function seedThread(runtime: Runtime, turns: number, cwd?: string): string {
  const { thread } = runtime.threads.start(cwd ? { cwd } : {}, 'api', 'bench');
  const store = runtime.services.durable;
  const now = Date.now();
  store.transaction(() => {
    for (let t = 1; t <= turns; t++) {
      const turnId = randomUUID();
      store.turns.upsert({
        id: turnId, threadId: thread.id, ordinal: t, status: 'completed', model: 'bench', error: null,
        usage: { totalTokens: 100, inputTokens: 80, cachedInputTokens: 40, cacheWriteInputTokens: 0, outputTokens: 20, reasoningOutputTokens: 5 },
        startedAtMs: now, completedAtMs: now + 1000,
      });
      const base = { turnId, createdAtMs: now, startedAtMs: now, completedAtMs: now };
      store.items.append(thread.id, { ...base, id: randomUUID(), type: 'userMessage', content: [textInput(`Question ${t}: what does module ${t} do?`)], ...ITEM_CODEX_NULLS.userMessage });
      store.items.append(thread.id, { ...base, id: randomUUID(), type: 'reasoning', summary: [], content: ['Let me look at the file first. '.repeat(4)] });
      store.items.append(thread.id, {
        ...base, id: randomUUID(), type: 'dynamicToolCall', namespace: null, tool: 'read_file', callId: `c${t}`, arguments: { path: `src/m${t}.ts` },
        status: 'completed', contentItems: [{ type: 'inputText', text: 'export const x = 1;\n'.repeat(10) }],
        output: 'export const x = 1;\n'.repeat(10), success: true, durationMs: 3,
      });
      store.items.append(thread.id, { ...base, id: randomUUID(), type: 'agentMessage', text: `Module ${t} exports a constant. `.repeat(8), ...ITEM_CODEX_NULLS.agentMessage });
    }
  });
  return thread.id;
}

/**
 * Seeds one thread of each size in the same runtime and times resumes of
 * the two alternately (after warm-up), so JIT and cache state favour neither.
 */
export async function resumeTimes(options: { home: string; runs: number }) {
  const runtime = createTestRuntime({ home: options.home });
  let threads: string[];
  let inProcess: ResumeMedians;
  try {
    threads = SIZES.map((turns) => seedThread(runtime, turns));
    inProcess = await alternate(threads, options.runs, (threadId) => runtime.dispatcher.call('thread/resume', { threadId }, ctx));
  } finally {
    await runtime.shutdown();
  }
  const stdio = await overStdio(options.home, threads, options.runs);
  return { ...inProcess, stdio };
}

const SIZES = [1000, 2000] as const;

interface ResumeMedians {
  readonly turns1000MedianMs: number;
  readonly turns2000MedianMs: number;
  readonly ratio2000to1000: number;
}

/** Times resumes of the seeded threads alternately (after warm-up), so JIT and cache state favour neither. */
async function alternate(threads: readonly string[], runs: number, resume: (threadId: string) => Promise<unknown>): Promise<ResumeMedians> {
  const samples: number[][] = threads.map(() => []);
  for (let run = -3; run < runs; run++) {
    for (const [index, threadId] of threads.entries()) {
      const start = performance.now();
      await resume(threadId);
      if (run >= 0) samples[index]!.push(performance.now() - start);
    }
  }
  const [turns1000MedianMs, turns2000MedianMs] = samples.map((s) => ms(quantile([...s].sort((a, b) => a - b), 0.5))) as [number, number];
  return { turns1000MedianMs, turns2000MedianMs, ratio2000to1000: Math.round((turns2000MedianMs / turns1000MedianMs) * 100) / 100 };
}

/** The same resumes as a client of `wheelhouse app-server` sees them, including the response's size in bytes. */
async function overStdio(home: string, threads: readonly string[], runs: number) {
  const server = spawnTracked(process.execPath, [cliBin, 'app-server', '--home', home], {
    cwd: repoRoot,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const channel = stdioChannel(server.child);
  try {
    const request = requester(channel);
    const init = await request('initialize', { clientInfo: { name: 'wheelhouse-bench', version: '0.0.0' } });
    if (!init.includes('"result"')) throw new Error(`initialize failed: ${init}`);
    const responseBytes: number[] = [];
    const medians = await alternate(threads, runs, async (threadId) => {
      const text = await request('thread/resume', { threadId });
      if (!text.startsWith(`{"id":`) || !text.includes('"result"')) throw new Error(`thread/resume failed: ${text.slice(0, 300)}`);
      responseBytes.push(Buffer.byteLength(text));
    });
    return { ...medians, responseBytes1000: responseBytes[0], responseBytes2000: responseBytes[1] };
  } finally {
    channel.close();
    await server.exited;
  }
}
