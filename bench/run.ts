/**
 * Benchmarks of the runtime's carriers (`npm run bench`). Prints one JSON
 * document; figures are compared with targets but never asserted.
 *
 *   npm run bench -- [--lean] [--soak routine|full]
 *
 * `leanAndBounded` gathers issue 23's figures (storage per output byte, RSS
 * after warm-up and the soaks, spawn -> initialize and peak RSS beside Codex
 * when CODEX_BIN is set, a 10 KB/s SSE reader during a 100 MB flood,
 * throughput against raw node-pty, the browser host's first paint and time
 * to an interactive thread list). `--lean` runs only the benches behind
 * them; `--soak full` soaks 2,400 turns and 500 jobs instead of 300 and 100.
 */
import os from 'node:os';
import { ensureCliBuilt } from '../test-support/build.js';
import { killAllChildren } from '../test-support/child-process.js';
import { TempDirs } from '../test-support/temp-dir.js';
import { notificationLoad } from './notification-load.js';
import { stdioRoundTrip, webSocketRoundTrip } from './round-trip.js';
import { agentFanout } from './agent-fanout.js';
import { eventFanout } from './event-fanout.js';
import { eventLogGroupCommit } from './event-log-commit.js';
import { markdownStreamingBench } from './markdown.js';
import { resumeTimes } from './resume.js';
import { sseFanout, sseReplay } from './sse-fanout.js';
import { sseSlowReader } from './sse-slow-reader.js';
import { sessionMemory } from './session-memory.js';
import { soakMemoryInChild } from './soak-memory.js';
import { rendererBundleSizes, startupTimes } from './startup.js';
import { turnOverhead } from './turn-overhead.js';
import { queueDrain } from './queue-drain.js';
import { mcpStartup } from './mcp-startup.js';
import { policyDecisionBench } from './policy.js';
import { ptyThroughput } from './pty-throughput.js';
import { carrierThroughput } from './carrier-throughput.js';
import { terminalEchoUnderFlood } from './terminal-echo.js';
import { jobsBench } from './jobs.js';
import { jobsDashboardBench } from './jobs-dashboard.js';
import { detachedRunsBench } from './detached-runs.js';
import { jobLogBench } from './job-log.js';
import { checkpointBench } from './checkpoints.js';
import { schedulesBench } from './schedules.js';
import { firstPaint } from './first-paint.js';
import { leanAndBounded, SOAK_SIZES, type SoakSize } from './lean-summary.js';

const TARGETS = {
  eventLoopP99Ms: 20,
  roundTripMedianMs: 1,
  turnOverheadMedianMs: 5,
  fanoutEventsPerSecond: 1000,
  fanoutCpuPercent: 10,
  resume1000TurnsMs: 500,
  resumeGrowth: 2.2,
  mcpParallelStartRatio: 1.3,
  ptyThroughputRatio: 0.6,
  unackedOutputBytes: 500 * 1024,
  keystrokeEchoP95Ms: 50,
  jobTransitionsPerSecond: 20_000,
  jobListFirstPageMs: 50,
  jobsDashboardMountMs: 50,
  jobLogOpenMs: 1000,
} as const;

interface BenchOptions {
  /** Only the benches behind `leanAndBounded`. */
  readonly lean: boolean;
  readonly soak: SoakSize;
}

function parseOptions(argv: readonly string[]): BenchOptions {
  const soakAt = argv.indexOf('--soak');
  const soak = soakAt >= 0 ? argv[soakAt + 1] : 'routine';
  if (soak !== 'routine' && soak !== 'full') throw new Error(`--soak takes routine or full, got ${String(soak)}`);
  return { lean: argv.includes('--lean'), soak };
}

function machine(loadAtStart: number) {
  return {
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    cpus: os.cpus().length,
    // Other work on the machine skews every figure; this says how busy it was.
    loadAverage1mAtStart: loadAtStart,
  };
}

/** Issue 23's figures alone, in the same order as in the full run. */
async function leanRun(options: BenchOptions, temp: TempDirs, loadAtStart: number) {
  const startup = await startupTimes({ runs: 15 });
  const slowReader = await sseSlowReader();
  const peakMemory = await sessionMemory({ runs: 3 });
  const soak = await soakMemoryInChild(SOAK_SIZES[options.soak]);
  const pty = await ptyThroughput({ dir: temp.make('wheelhouse-bench-') });
  const carriers = await carrierThroughput({ temp });
  const windowStart = await firstPaint({ temp });
  return {
    machine: machine(loadAtStart),
    leanAndBounded: leanAndBounded({ soakSize: options.soak, startup, peakMemory, soak, slowReader, pty, carriers, windowStart }),
    startupToInitialize: startup,
    windowFirstPaint: windowStart,
    sseSlowReader: slowReader,
    sessionPeakMemory: peakMemory,
    soakMemory: soak,
    ptyThroughput: pty,
    ptyToClientThroughput: carriers,
  };
}

async function main(): Promise<void> {
  // Measure what users run: results are validated in development only (this runtime and the children inherit it).
  process.env.NODE_ENV = 'production';
  const options = parseOptions(process.argv.slice(2));
  ensureCliBuilt();
  const loadAtStart = Math.round(os.loadavg()[0]! * 100) / 100;
  const temp = new TempDirs();
  try {
    if (options.lean) {
      process.stdout.write(`${JSON.stringify(await leanRun(options, temp, loadAtStart), null, 2)}\n`);
      return;
    }
    // First, while nothing else of this bench has warmed the machine up.
    const startup = await startupTimes({ runs: 15 });
    const roundTripOptions = { warmup: 500, requests: 5000 };
    const stdio = await stdioRoundTrip({ home: temp.make('wheelhouse-bench-'), ...roundTripOptions });
    const webSocket = await webSocketRoundTrip({ home: temp.make('wheelhouse-bench-'), ...roundTripOptions });
    const load = await notificationLoad({
      home: temp.make('wheelhouse-bench-'),
      receivers: 4,
      durationMs: 5000,
      window: 8,
    });
    const overhead = await turnOverhead({ home: () => temp.make('wheelhouse-bench-'), turns: 300 });
    const drain = await queueDrain({ home: temp.make('wheelhouse-bench-'), turns: 30 });
    const resume = await resumeTimes({ home: temp.make('wheelhouse-bench-'), runs: 7 });
    const fanout = await eventFanout({
      home: temp.make('wheelhouse-bench-'),
      clients: 4,
      stepSeconds: 2,
      rates: [1000, 2000, 4000, 8000, 16000, 32000, 64000],
    });
    const fanoutAt1000 = fanout.steps.find((step) => step.offeredPerSecond === 1000);
    const fanoutOverHttp = await agentFanout({ home: temp.make('wheelhouse-bench-'), clients: 4, deltas: 6000, burst: 6 });
    const sse = await sseFanout({ home: temp.make('wheelhouse-bench-'), subscribers: 20, deltas: 6000, perSecond: 1200 });
    const replay = await sseReplay({ home: temp.make('wheelhouse-bench-'), events: 100_000 });
    const slowReader = await sseSlowReader();
    // Beside Codex's app-server on the same session when CODEX_BIN is set.
    const peakMemory = await sessionMemory({ runs: 3 });
    const soak = await soakMemoryInChild(SOAK_SIZES[options.soak]);
    const groupCommit = await eventLogGroupCommit({ dir: () => temp.make('wheelhouse-bench-') });
    const mcp = await mcpStartup(temp);
    const pty = await ptyThroughput({ dir: temp.make('wheelhouse-bench-') });
    const carriers = await carrierThroughput({ temp });
    const terminalEcho = await terminalEchoUnderFlood({ home: temp.make('wheelhouse-bench-'), cwd: temp.make('wheelhouse-bench-') });
    const terminalEchoWs = await terminalEchoUnderFlood({ home: temp.make('wheelhouse-bench-'), cwd: temp.make('wheelhouse-bench-'), carrier: 'websocket' });
    const jobs = await jobsBench({ home: temp.make('wheelhouse-bench-') });
    const jobsDashboard = await jobsDashboardBench({ home: temp.make('wheelhouse-bench-') });
    const detachedRuns = await detachedRunsBench({ temp });
    const jobLog = await jobLogBench({ home: temp.make('wheelhouse-bench-') });
    const checkpoints = await checkpointBench(temp);
    const windowStart = await firstPaint({ temp });
    const report = {
      machine: machine(loadAtStart),
      // Issue 23's figures, gathered from the benches below (each in full under its own key).
      leanAndBounded: leanAndBounded({ soakSize: options.soak, startup, peakMemory, soak, slowReader, pty, carriers, windowStart }),
      // Spawn -> initialize response of fresh processes; Codex's alongside when `codex` is on PATH.
      startupToInitialize: startup,
      // Browser host: serve spawned, fresh Chromium page, 0 threads beside 500: first paint, thread list ready, a row opening its thread.
      windowFirstPaint: windowStart,
      rendererBundle: rendererBundleSizes(),
      serveEventLoopUnderNotificationLoad: {
        ...load,
        target: `p99 <= ${TARGETS.eventLoopP99Ms} ms`,
        meetsTarget: load.loadedEventLoop.p99Ms <= TARGETS.eventLoopP99Ms,
      },
      roundTripThreadLoadedList: {
        stdio: { ...stdio, meetsTarget: stdio.medianMs <= TARGETS.roundTripMedianMs },
        webSocket: { ...webSocket, meetsTarget: webSocket.medianMs <= TARGETS.roundTripMedianMs },
        target: `median <= ${TARGETS.roundTripMedianMs} ms`,
      },
      turnRuntimeOverhead: {
        ...overhead,
        target: `median <= ${TARGETS.turnOverheadMedianMs} ms`,
        meetsTarget: overhead.medianMs <= TARGETS.turnOverheadMedianMs,
      },
      // 30 queued turns draining on an idle thread beside 30 direct turns, mock model over HTTP.
      queuedTurnDrainOverhead: {
        ...drain,
        target: `queued median <= ${TARGETS.turnOverheadMedianMs} ms`,
        meetsTarget: drain.queued.medianMs <= TARGETS.turnOverheadMedianMs,
      },
      resumeLongThread: {
        ...resume,
        target: `1000 turns <= ${TARGETS.resume1000TurnsMs} ms; 2x turns <= ${TARGETS.resumeGrowth}x time`,
        meetsTarget: resume.turns1000MedianMs <= TARGETS.resume1000TurnsMs && resume.ratio2000to1000 <= TARGETS.resumeGrowth,
      },
      eventFanout: {
        ...fanout,
        target: `sustains >= ${TARGETS.fanoutEventsPerSecond} events/s; at 1000/s < ${TARGETS.fanoutCpuPercent}% of one core in total`,
        meetsTarget:
          fanout.maxSustainedEventsPerSecond >= TARGETS.fanoutEventsPerSecond &&
          fanoutAt1000 !== undefined &&
          fanoutAt1000.totalCpuPercentOfOneCore < TARGETS.fanoutCpuPercent,
      },
      // The same stream through a real HTTP provider (mock) and `wheelhouse serve`: includes SSE parsing.
      agentStreamOverHttp: fanoutOverHttp,
      // HTTP API: 20 SSE subscribers on one streaming turn, and a 100,000-event replay to a new one.
      sseFanout: { ...sse, meetsTarget: sse.hostEventLoopP99Ms <= TARGETS.eventLoopP99Ms },
      sseReplay: replay,
      // A client reading at 10 KB/s during a 100 MB flood, beside one reading at full speed: paced from the log, memory flat.
      sseSlowReader: slowReader,
      sessionPeakMemory: peakMemory,
      soakMemory: soak,
      // Durable before announced: the event log's group commit beside the log before it (broadcast first, 25 ms batches), same run.
      eventLogGroupCommit: groupCommit,
      markdownStreamingUpdate: await markdownStreamingBench(),
      // 5 stdio MCP servers (server-everything x3, server-filesystem x2) from node_modules via `wheelhouse app-server`.
      mcpStartup: {
        ...mcp,
        target: `all ready <= ${TARGETS.mcpParallelStartRatio} x slowest alone; initialize before any server is ready`,
        meetsTarget: mcp.ratio <= TARGETS.mcpParallelStartRatio && mcp.initializeBeforeAnyReady,
      },
      // seq 1 3000000 through the process supervisor to a flow-controlled consumer vs a raw node-pty drain.
      ptyThroughput: {
        ...pty,
        target: `supervisor >= ${TARGETS.ptyThroughputRatio} x raw, lossless, unacked <= ${TARGETS.unackedOutputBytes} bytes, echo p95 <= ${TARGETS.keystrokeEchoP95Ms} ms under flood`,
        meetsTarget:
          pty.ratioOfMedians >= TARGETS.ptyThroughputRatio &&
          pty.supervisor.lossless &&
          pty.supervisor.logLossless &&
          pty.supervisor.maxUnackedBytes <= TARGETS.unackedOutputBytes &&
          pty.keystrokeEchoUnderFlood.p95Ms <= TARGETS.keystrokeEchoP95Ms,
      },
      // seq 1 3000000 run by the agent (exec_command, read over WebSocket) and by command/exec (over stdio) vs raw node-pty, same run.
      ptyToClientThroughput: {
        ...carriers,
        target: `>= ${TARGETS.ptyThroughputRatio} x raw node-pty, every client and the log lossless (a slow client included)`,
        meetsTarget:
          carriers.agentOverWebSocket.ratioOfMedians >= TARGETS.ptyThroughputRatio &&
          carriers.commandExecOverStdio.ratioOfMedians >= TARGETS.ptyThroughputRatio &&
          carriers.agentOverWebSocket.clientLossless &&
          carriers.agentOverWebSocket.logLossless &&
          carriers.agentOverWebSocketWithSlowClient.fastClientLossless &&
          carriers.agentOverWebSocketWithSlowClient.slowClientLossless &&
          carriers.agentOverWebSocketWithSlowClient.logLossless &&
          carriers.commandExecOverStdio.clientLossless &&
          carriers.commandExecOverStdio.logLossless,
      },
      // The person's terminal end to end: command/exec tty `cat` while seq floods on the same connection, over stdio and WebSocket.
      terminalEchoOverStdio: {
        ...terminalEcho,
        target: `echo p95 <= ${TARGETS.keystrokeEchoP95Ms} ms under flood`,
        meetsTarget: terminalEcho.p95Ms <= TARGETS.keystrokeEchoP95Ms && terminalEcho.floodStillRunning,
      },
      terminalEchoOverWebSocket: {
        ...terminalEchoWs,
        target: `echo p95 <= ${TARGETS.keystrokeEchoP95Ms} ms under flood`,
        meetsTarget: terminalEchoWs.p95Ms <= TARGETS.keystrokeEchoP95Ms && terminalEchoWs.floodStillRunning,
      },
      // 10,000 jobs paused and resumed at once (each durable before it is answered), then job/list.
      jobs: {
        ...jobs,
        target: `>= ${TARGETS.jobTransitionsPerSecond} transitions/s; job/list first page <= ${TARGETS.jobListFirstPageMs} ms`,
        meetsTarget: jobs.transitionsPerSecond >= TARGETS.jobTransitionsPerSecond && jobs.listFirstPage.p99Ms <= TARGETS.jobListFirstPageMs,
      },
      // Chromium + wheelhouse serve with 10,000 jobs: remount = job page -> list with the data loaded.
      jobsDashboard: {
        ...jobsDashboard,
        target: `remount <= ${TARGETS.jobsDashboardMountMs} ms; scroll at 60 fps (median frame <= 16.7 ms)`,
        meetsTarget: jobsDashboard.remountMs <= TARGETS.jobsDashboardMountMs && jobsDashboard.frameIntervalMedianMs <= 17,
      },
      // Command jobs run detached: each idle run's wrapper memory (20 runs) beside a Node + node-pty wrapper,
      // start to first byte and a flood through the wrapper's log, each beside the in-process supervisor.
      detachedRuns,
      // Chromium + wheelhouse serve: a job page whose log has 1,000,000 lines beside one with 1,000.
      jobLog: {
        ...jobLog,
        target: `1,000,000 lines: open to last line <= ${TARGETS.jobLogOpenMs} ms; scroll at 60 fps (median frame <= 16.7 ms)`,
        meetsTarget: jobLog.million.openToLastLineMs <= TARGETS.jobLogOpenMs && jobLog.million.frameIntervalMedianMs <= 17,
      },
      // Git checkpoints per turn: a 10,000-file repository beside 100 files; reading 500 changed files.
      checkpoints,
      // 1,000 schedules beside 1: next due slot, claim + dispatch of one due slot; idle CPU with 1,000 armed.
      schedules: await schedulesBench(),
      // Exec policy: parse + rules + built-in checks + approval mode, in process (no I/O).
      execPolicyDecision: await policyDecisionBench(),
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    await killAllChildren();
    temp.cleanup();
  }
}

await main();
