/**
 * Issue 23's "done means" in one place: every figure it asks `bench/` for,
 * taken from the benches of the same run, each beside its baseline and goal.
 * The benches print their full detail under their own keys; this is the page
 * the README's lean-and-bounded figures are copied from.
 */
import type { carrierThroughput } from './carrier-throughput.js';
import type { FirstPaintReport, HomeFigures } from './first-paint.js';
import type { ptyThroughput } from './pty-throughput.js';
import type { sessionMemory } from './session-memory.js';
import type { SoakMemory } from './soak-memory.js';
import type { sseSlowReader } from './sse-slow-reader.js';
import type { StartupSummary } from './startup.js';

/** How big the soaks are: `routine` for every run, `full` for the figures the issue names (2,400 turns, 500 jobs). */
export const SOAK_SIZES = {
  routine: { turns: 300, jobs: 100 },
  full: { turns: 2400, jobs: 500 },
} as const;
export type SoakSize = keyof typeof SOAK_SIZES;

export const LEAN_GOALS = {
  storagePerOutputByte: 1.1,
  soakGrowthPercent: 10,
  peakRssOfCodex: 0.6,
  startupOfCodex: 0.5,
  throughputOfRaw: 0.8,
} as const;

export interface LeanFigures {
  readonly soakSize: SoakSize;
  readonly startup: Record<string, unknown>;
  readonly peakMemory: Awaited<ReturnType<typeof sessionMemory>>;
  readonly soak: SoakMemory;
  readonly slowReader: Awaited<ReturnType<typeof sseSlowReader>>;
  readonly pty: Awaited<ReturnType<typeof ptyThroughput>>;
  readonly carriers: Awaited<ReturnType<typeof carrierThroughput>>;
  readonly windowStart: FirstPaintReport;
}

const round2 = (value: number) => Math.round(value * 100) / 100;
/** One home's window figures as medians, the p90 beside the one that matters most. */
function windowMedians(home: HomeFigures) {
  return {
    threads: home.threads,
    serverSpawnToReadyMs: home.serverSpawnToReady.medianMs,
    firstPaintMs: home.firstPaint?.medianMs ?? null,
    firstContentfulPaintMs: home.firstContentfulPaint?.medianMs ?? null,
    threadListInDomMs: home.threadListReady.medianMs,
    threadListPaintedMs: home.threadListPainted?.medianMs ?? null,
    threadOpenedAfterClickMs: home.threadOpenedAfterClick?.medianMs ?? null,
    threadPaintedAfterClickMs: home.threadPaintedAfterClick?.medianMs ?? null,
    threadPaintedAfterClickP90Ms: home.threadPaintedAfterClick?.p90Ms ?? null,
    clickToThreadPaintedMs: home.clickToThreadPainted?.medianMs ?? null,
  };
}

const medianOf = (summary: unknown): number | null =>
  typeof summary === 'object' && summary !== null && 'medianMs' in summary ? (summary as StartupSummary).medianMs : null;

/** The start-up figures measured without NODE_EXTRA_CA_CERTS, when it was set (else nothing). */
function startupWithoutExtraCaCerts(startup: Record<string, unknown>, codex: number | null) {
  if (startup['wheelhouseWithoutExtraCaCerts'] === undefined) return {};
  const ours = medianOf(startup['wheelhouseWithoutExtraCaCerts']);
  const ratio = ours !== null && codex !== null ? round2(ours / codex) : null;
  return {
    withoutNodeExtraCaCerts: {
      wheelhouseMedianMs: ours,
      nodeEmptyProgramMedianMs: medianOf(startup['nodeEmptyProgramWithoutExtraCaCerts']),
      ratio,
      meetsGoal: ratio !== null ? ratio <= LEAN_GOALS.startupOfCodex : null,
    },
  };
}

export function leanAndBounded(figures: LeanFigures) {
  const { startup, peakMemory, soak, slowReader, pty, carriers, windowStart } = figures;
  const storage = Math.max(...carriers.storagePerOutputByte);
  const ours = medianOf(startup['wheelhouseExistingHome']);
  const codex = medianOf(startup['codex']);
  const startupRatio = ours !== null && codex !== null ? round2(ours / codex) : null;
  const codexNpm = medianOf(startup['codexNpm']);
  const lossless =
    carriers.agentOverWebSocket.clientLossless &&
    carriers.agentOverWebSocket.logLossless &&
    carriers.commandExecOverStdio.clientLossless &&
    carriers.commandExecOverStdio.logLossless;
  return {
    loadAverage1m: carriers.loadAverage1m,
    outputStoragePerByte: {
      // The whole database and the process logs after one `seq 1 3000000`, over the output's size (worst round).
      worstRound: storage,
      rounds: carriers.storagePerOutputByte,
      goal: `<= ${LEAN_GOALS.storagePerOutputByte}`,
      meetsGoal: storage <= LEAN_GOALS.storagePerOutputByte,
    },
    soakRss: {
      size: `${figures.soakSize}: ${soak.turns} turns, then ${soak.jobs} jobs (after a warm-up of 30 turns and 10 jobs)`,
      baselineMb: soak.baseline.rssMb,
      afterWarmUpMb: soak.warm.rssMb,
      afterTurnsMb: soak.afterTurns.rssMb,
      afterJobsMb: soak.afterJobs.rssMb,
      growthPercent: soak.growthPercent,
      growthAfterFirstEighthOfTurnsPercent: soak.growthAfterFirstEighthPercent,
      anonymousGrowthPercent: soak.anonymousGrowthPercent,
      heapGrowthPercent: soak.heapGrowthPercent,
      sqliteMmapMb: { afterWarmUp: soak.warm.sqliteMmapMb, afterJobs: soak.afterJobs.sqliteMmapMb },
      databaseFileMbAfterJobs: soak.afterJobs.databaseFileMb,
      goal: `growth after warm-up <= ${LEAN_GOALS.soakGrowthPercent}% at ${SOAK_SIZES.full.turns} turns and ${SOAK_SIZES.full.jobs} jobs`,
      meetsGoal: soak.growthPercent <= LEAN_GOALS.soakGrowthPercent,
    },
    sessionPeakRss: {
      wheelhouseMb: peakMemory.wheelhousePeakRssMb,
      codexMb: peakMemory.codexPeakRssMb,
      ratio: peakMemory.ratio,
      goal: `<= ${LEAN_GOALS.peakRssOfCodex} x Codex's`,
      meetsGoal: peakMemory.ratio !== null ? peakMemory.ratio <= LEAN_GOALS.peakRssOfCodex : null,
    },
    spawnToInitialize: {
      wheelhouseMedianMs: ours,
      codexMedianMs: codex ?? 'not measured (set CODEX_BIN to the native codex binary)',
      nodeEmptyProgramMedianMs: medianOf(startup['nodeEmptyProgram']),
      ratio: startupRatio,
      // Codex as `npm i @openai/codex` installs it (a Node launcher in front of the native binary); the native one is the goal's.
      codexNpmMedianMs: codexNpm ?? 'not measured',
      ratioToCodexNpm: ours !== null && codexNpm !== null ? round2(ours / codexNpm) : null,
      goal: `<= ${LEAN_GOALS.startupOfCodex} x Codex's (native)`,
      meetsGoal: startupRatio !== null ? startupRatio <= LEAN_GOALS.startupOfCodex : null,
      // Where NODE_EXTRA_CA_CERTS is set, Node reads it before any JavaScript runs (bench/startup.ts): the same without it.
      ...startupWithoutExtraCaCerts(startup, codex),
    },
    windowStart: {
      // Medians from navigation start of a fresh page (server spawn -> URL printed apart); full spreads under windowFirstPaint.
      host: windowStart.host,
      chromium: windowStart.chromium,
      pageLoadsEach: windowStart.baseline.pageLoads,
      baseline: windowMedians(windowStart.baseline),
      worstCase: windowMedians(windowStart.worstCase),
      electron: windowStart.electron,
    },
    sseSlowReader: {
      floodMb: slowReader.slow.floodMb,
      fullSpeedReaderRssGrowthMb: slowReader.baseline.rssGrowthMb,
      slowReaderRssGrowthMb: slowReader.slow.rssGrowthMb,
      slowReaderLargestBacklogMb: slowReader.slow.largestUnsentBacklogMb,
      reader: slowReader.slow.reader,
    },
    throughputOfRawNodePty: {
      fixture: carriers.fixture,
      rawNodePtyMbPerSecond: carriers.rawNodePty.mbPerSecond,
      agentOverWebSocket: carriers.agentOverWebSocket.ratioOfMedians,
      commandExecOverStdio: carriers.commandExecOverStdio.ratioOfMedians,
      supervisorInProcess: pty.ratioOfMedians,
      // The floor for any Node server here: the same output and encoding, carried by a process that does nothing else.
      bareNodeRelayOverStdio: carriers.bareNodeRelayOverStdio.ratioOfMedians,
      // Load-robust beside the ratios: CPU spent on the command by the server, its client and the raw drain's reader.
      cpuMsPerRun: {
        agentServeOverWebSocket: carriers.agentOverWebSocket.serverCpuMs,
        agentWebSocketClient: carriers.agentOverWebSocket.clientCpuMs,
        commandExecAppServerOverStdio: carriers.commandExecOverStdio.serverCpuMs,
        commandExecStdioClient: carriers.commandExecOverStdio.clientCpuMs,
        bareNodeRelay: carriers.bareNodeRelayOverStdio.relayCpuMs,
        rawNodePtyReader: carriers.rawNodePty.readerCpuMs,
      },
      // Outside the timed window: a server's first command also captures the login shell's environment.
      firstCommandMs: carriers.commandExecOverStdio.firstCommandMs,
      everyClientAndLogLossless: lossless,
      goal: `>= ${LEAN_GOALS.throughputOfRaw} x raw over WebSocket and stdio, lossless`,
      meetsGoal:
        lossless &&
        carriers.agentOverWebSocket.ratioOfMedians >= LEAN_GOALS.throughputOfRaw &&
        carriers.commandExecOverStdio.ratioOfMedians >= LEAN_GOALS.throughputOfRaw,
    },
  };
}
