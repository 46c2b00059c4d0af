/**
 * Memory over a long session: RSS (after a full GC) once warmed up, then
 * after many turns (a new thread every 10, so per-thread state shows) and
 * many jobs that run a real command through the supervisor. Growth past
 * warm-up is what a process open for weeks would keep adding. In-process
 * runtime with a model that streams 20 deltas per reply; the baseline is
 * the same process's RSS before the runtime was created.
 *
 *   node --import tsx bench/soak-memory.ts [--turns 300] [--jobs 100]
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { ModelClient, ModelRequest, ModelStreamEvent } from '../electron/model/types.js';
import type { RequestContext } from '../electron/runtime/context.js';
import { ensureCliBuilt } from '../test-support/build.js';
import { cliBundle } from '../test-support/paths.js';
import { createTestRuntime } from '../test-support/test-runtime.js';
import { TempDirs } from '../test-support/temp-dir.js';

const ctx: RequestContext = { session: { connectionId: 'bench', carrier: 'in-process', clientInfo: null, optOut: new Set() } };

class ReplyModel implements ModelClient {
  stream(_request: ModelRequest): AsyncIterable<ModelStreamEvent> {
    return (async function* (): AsyncGenerator<ModelStreamEvent> {
      for (let i = 0; i < 20; i++) yield { type: 'textDelta', delta: `token${i} ` };
      yield { type: 'usage', usage: { totalTokens: 30, inputTokens: 10, cachedInputTokens: 0, cacheWriteInputTokens: 0, outputTokens: 20, reasoningOutputTokens: 0 } };
      yield { type: 'done', finishReason: 'stop' };
    })();
  }

  async listModels() {
    return [];
  }
}

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const mb = (bytes: number) => Math.round((bytes / (1024 * 1024)) * 10) / 10;

interface Settled {
  readonly rssMb: number;
  /** Of the RSS, pages of files mapped in (node's binary, addons; the database when SQLite maps it): clean, the kernel drops them under pressure. */
  readonly fileMb: number;
  /** Of those, pages of the state database (0 while `mmap_size` is 0, electron/store/database.ts). */
  readonly sqliteMmapMb: number;
  /** The state database's size on disk (its WAL apart): what an uncapped mmap would map whole. */
  readonly databaseFileMb: number;
  readonly heapMb: number;
  /** What V8 has reserved for its heap (used or not), and memory outside it held by JS objects (Buffers). */
  readonly heapTotalMb: number;
  readonly externalMb: number;
  /** Resident pages of V8's young generation: committed up front, touched as it fills (not in the live heap). */
  readonly newSpaceMb: number;
  /** Resident pages of the process's brk heap: where glibc's main arena, and so SQLite's page cache, lives. */
  readonly brkHeapMb: number;
}

/** Resident kB of the mappings of `file` (/proc/self/smaps: a header line per mapping, then its figures). */
function residentKbOf(file: string): number {
  let total = 0;
  let inFile = false;
  for (const line of fs.readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) inFile = line.endsWith(` ${file}`);
    else if (inFile && line.startsWith('Rss:')) total += Number(/(\d+)/.exec(line)?.[1] ?? 0);
  }
  return total;
}

/** RSS and live JS heap in MB after two full collections (what is still held, not garbage waiting). */
function settled(databaseFile?: string): Settled {
  gc();
  gc();
  const usage = process.memoryUsage();
  const status = fs.readFileSync('/proc/self/status', 'utf8');
  const fileKb = Number(/RssFile:\s+(\d+)/.exec(status)?.[1] ?? 0);
  const databaseBytes = databaseFile && fs.existsSync(databaseFile) ? fs.statSync(databaseFile).size : 0;
  return {
    rssMb: mb(usage.rss),
    fileMb: mb(fileKb * 1024),
    sqliteMmapMb: databaseFile ? mb(residentKbOf(databaseFile) * 1024) : 0,
    databaseFileMb: mb(databaseBytes),
    heapMb: mb(usage.heapUsed),
    heapTotalMb: mb(usage.heapTotal),
    externalMb: mb(usage.external),
    newSpaceMb: mb(v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.physical_space_size ?? 0),
    brkHeapMb: mb(residentKbOf('[heap]') * 1024),
  };
}

export interface SoakMemory {
  readonly baseline: Settled;
  readonly warm: Settled;
  readonly afterTurns: Settled;
  readonly afterJobs: Settled;
  readonly turns: number;
  readonly jobs: number;
  /** Growth from warm-up to the end, in % of the warm figure (the bound: 10). */
  readonly growthPercent: number;
  /** The same without file-backed pages: memory the process itself holds. */
  readonly anonymousGrowthPercent: number;
  /** The same for the live JS heap: growth here is held objects, not the allocator keeping pages. */
  readonly heapGrowthPercent: number;
  /** RSS after each eighth of the turns, then of the jobs: a plateau is a bounded cache filling, a slope a leak. */
  readonly rssSeriesMb: readonly number[];
  /** Growth from the end of the first eighth of the turns (the page cache full) to the end. */
  readonly growthAfterFirstEighthPercent: number;
  /** Growth over the second half of the turns, and of the jobs, alone (in % of the RSS at its start). */
  readonly turnsSecondHalfGrowthPercent: number;
  readonly jobsSecondHalfGrowthPercent: number;
}

export async function soakMemory(options: { turns: number; jobs: number; temp: TempDirs }): Promise<SoakMemory> {
  const baseline = settled();
  const home = options.temp.make('wheelhouse-soak-');
  const database = path.join(fs.realpathSync(home), 'state.sqlite');
  const runtime = createTestRuntime({
    home,
    defaults: { cwd: home },
    bindModel: async () => ({ client: new ReplyModel(), model: 'bench', contextWindow: null }),
  });
  const call = runtime.dispatcher.call.bind(runtime.dispatcher);
  const turn = async (threadId: string, i: number) => {
    const completed = new Promise<void>((resolve) => {
      const off = runtime.events.subscribe((n) => {
        if (n.method === 'turn/completed' && n.params.threadId === threadId) {
          off();
          resolve();
        }
      });
    });
    await call('turn/start', { threadId, input: [{ type: 'text', text: `message ${i}` }] }, ctx);
    await completed;
  };
  const turns = async (count: number) => {
    let threadId = '';
    for (let i = 0; i < count; i++) {
      if (i % 10 === 0) threadId = (await call('thread/start', {}, ctx)).thread.id;
      await turn(threadId, i);
    }
  };
  const jobs = async (count: number) => {
    for (let i = 0; i < count; i++) {
      const finished = new Promise<void>((resolve) => {
        const off = runtime.events.subscribe((n) => {
          if (n.method === 'job/updated' && n.params.job.name === `soak ${i}` && ['completed', 'failed', 'cancelled'].includes(n.params.job.status)) {
            off();
            resolve();
          }
        });
      });
      await call('job/create', { kind: 'command', name: `soak ${i}`, command: `echo soak ${i}`, cwd: home }, ctx);
      await finished;
    }
  };
  try {
    // Warm-up: every path once (model, turns, threads, jobs, the supervisor).
    await turns(30);
    await jobs(10);
    const warm = settled(database);
    const series: number[] = [];
    const inEighths = async (count: number, run: (part: number) => Promise<void>) => {
      for (let eighth = 0; eighth < 8; eighth++) {
        await run(Math.floor((count * (eighth + 1)) / 8) - Math.floor((count * eighth) / 8));
        series.push(settled(database).rssMb);
      }
    };
    await inEighths(options.turns, turns);
    const afterTurns = settled(database);
    await inEighths(options.jobs, jobs);
    const afterJobs = settled(database);
    const growth = (from: number, to: number) => Math.round(((to - from) / from) * 1000) / 10;
    return {
      baseline,
      warm,
      afterTurns,
      afterJobs,
      turns: options.turns,
      jobs: options.jobs,
      growthPercent: growth(warm.rssMb, afterJobs.rssMb),
      anonymousGrowthPercent: growth(warm.rssMb - warm.fileMb, afterJobs.rssMb - afterJobs.fileMb),
      heapGrowthPercent: growth(warm.heapMb, afterJobs.heapMb),
      rssSeriesMb: series,
      // From the first eighth of the turns on: by then SQLite's page cache (8 MB) and the allocator's arenas are full.
      growthAfterFirstEighthPercent: growth(series[0]!, afterJobs.rssMb),
      turnsSecondHalfGrowthPercent: growth(series[3]!, series[7]!),
      jobsSecondHalfGrowthPercent: growth(series[11]!, series[15]!),
    };
  } finally {
    await runtime.shutdown();
  }
}

/**
 * The soak in a process of its own: in the bench's process, what earlier benches left resident
 * (an SSE flood's buffers, say) would be counted in its baseline and dilute its growth.
 * The product holds V8's young generation at 1 MB before any of its code runs
 * (`electron/host/young-generation.ts`, the first import of every host); here tsx loads first,
 * and had grown it to 14–21 MB before the runtime's modules set the flag, and its resident pages
 * then rose by up to 7 MB over the turns: the bench's own loader, not the product. So the built
 * module is imported before tsx, as the hosts import it first.
 */
export async function soakMemoryInChild(options: { turns: number; jobs: number }): Promise<SoakMemory> {
  const script = fileURLToPath(import.meta.url);
  ensureCliBuilt();
  const youngGeneration = pathToFileURL(path.join(path.dirname(cliBundle), 'young-generation.js')).href;
  const args = ['--import', youngGeneration, '--import', 'tsx', script, '--turns', String(options.turns), '--jobs', String(options.jobs)];
  const { stdout } = await promisify(execFile)(process.execPath, args, {
    cwd: path.dirname(path.dirname(script)),
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(stdout) as SoakMemory;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (name: string, fallback: number) => {
    const at = process.argv.indexOf(name);
    return at > 0 ? Number(process.argv[at + 1]) : fallback;
  };
  const temp = new TempDirs();
  const load = os.loadavg()[0]!.toFixed(2);
  try {
    const result = await soakMemory({ turns: arg('--turns', 300), jobs: arg('--jobs', 100), temp });
    process.stdout.write(`${JSON.stringify({ loadAverage: load, loadAverageAtEnd: os.loadavg()[0]!.toFixed(2), ...result }, null, 2)}\n`);
  } finally {
    temp.cleanup();
  }
}
