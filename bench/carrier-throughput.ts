/**
 * `seq 1 3000000` end to end: run through the runtime and read at real
 * clients over real carriers, against a raw node-pty drain of the same
 * fixture in the same run (interleaved, so machine load hits both alike).
 *
 * - agent over WebSocket: `wheelhouse serve` as a child process, the mock
 *   model asks for `exec_command`, one client reads every
 *   `item/commandExecution/outputDelta`. Timed from the client seeing the
 *   command's `item/started` to it seeing `item/completed`: policy, spawn,
 *   pty, supervisor batching, the process log, the event log (SQLite),
 *   JSON, the socket and the client's parse. The model's own time is outside.
 * - the same with two clients, one of them slow (it stops reading its socket
 *   for 100 ms after every 512 KB): the command is paced by it; checks that
 *   both still get every byte and reports the server's peak memory.
 * - command/exec over stdio: `wheelhouse app-server`, a streamed `command/exec`
 *   (no client acks), timed from the request to its answer (all output before it),
 *   after one short command (a server's first also captures the login shell's environment).
 * - a bare Node relay (bench/bare-relay.mjs) over stdio: the same output, batching and
 *   encoding with nothing else done, the floor for a Node server beside the raw drain.
 *
 * Every client's bytes, and the command's log file, are hashed and compared
 * with the expected sequence: lossless means same length and same sha256.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import readline from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { execCall, mockModelConfig, textReply } from '../test-support/agent-commands.js';
import { ensureCliBuilt } from '../test-support/build.js';
import { killAllChildren, spawnTracked } from '../test-support/child-process.js';
import { startMockModelServer, type MockModelServer } from '../test-support/mock-model/index.js';
import { cliBin, repoRoot } from '../test-support/paths.js';
import { startServe } from '../test-support/serve-process.js';
import { TempDirs } from '../test-support/temp-dir.js';
import { connectWs, type WsPeer } from '../test-support/ws-peer.js';
import { expectedDigest, FIXTURE, LINES, rawDrain, type RunResult } from './pty-throughput.js';
import { cpuTimeMs } from './startup.js';

/**
 * Extra node flags for the servers under test, space-separated: e.g.
 * `CARRIER_BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof"` profiles them.
 */
const SERVER_NODE_ARGS = (process.env['CARRIER_BENCH_SERVER_NODE_ARGS'] ?? '').split(' ').filter(Boolean);
/** `WHEELHOUSE_BASELINE_CLI=<other checkout>/bin/wheelhouse.mjs` runs that build's agent over WebSocket and `command/exec` over stdio in every round too. */
const BASELINE_CLI = process.env['WHEELHOUSE_BASELINE_CLI'];
const SLOW_CLIENT_CHUNK = 512 * 1024;
/**
 * `CARRIER_BENCH_GC_PROBE=1` preloads bench/gc-probe.mjs into every server under test, which logs its
 * garbage collections (counted within each timed window as `serverGc`). Off by default: its
 * PerformanceObserver cost the WebSocket server ~25 ms of a 750 ms busy flood (150 entries, each
 * built with deprecated getters), a cost the raw drain does not pay.
 */
const GC_PROBE = process.env['CARRIER_BENCH_GC_PROBE'] === '1' ? fileURLToPath(new URL('./gc-probe.mjs', import.meta.url)) : null;
const gcProbeArgs = GC_PROBE ? ['--import', GC_PROBE] : [];
const BARE_RELAY = fileURLToPath(new URL('./bare-relay.mjs', import.meta.url));

/**
 * Minor (scavenges) and major collections the probe logged between two `performance.now()` times
 * of this process, and the main thread's time in them (`pauseMs`; helper threads' work is not in it).
 */
function gcWithin(file: string, fromMs: number, toMs: number): { minor: number; major: number; pauseMs: number } | null {
  if (!GC_PROBE) return null;
  const counts = { minor: 0, major: 0, pauseMs: 0 };
  const from = performance.timeOrigin + fromMs;
  const to = performance.timeOrigin + toMs;
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  for (const line of text.split('\n')) {
    const [at, kind, duration] = line.split(' ');
    if (kind !== 'minor' && kind !== 'major') continue;
    if (Number(at) < from || Number(at) > to) continue;
    counts[kind] += 1;
    counts.pauseMs += Number(duration);
  }
  return { ...counts, pauseMs: Math.round(counts.pauseMs) };
}
const SLOW_CLIENT_PAUSE_MS = 100;

interface ClientCopy {
  bytes: number;
  readonly hash: ReturnType<typeof createHash>;
}

const newCopy = (): ClientCopy => ({ bytes: 0, hash: createHash('sha256') });

function fileDigest(file: string): { bytes: number; sha256: string } {
  const data = fs.readFileSync(file);
  return { bytes: data.length, sha256: createHash('sha256').update(data).digest('hex') };
}

/** Peak and current resident memory of a process, in MB (from /proc). */
function memoryMb(pid: number): { peakRssMb: number; rssMb: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? Number.NaN);
  return { peakRssMb: Math.round(kb('VmHWM') / 1024), rssMb: Math.round(kb('VmRSS') / 1024) };
}

const DELTA_PREFIX = Buffer.from('{"method":"item/commandExecution/outputDelta"');

/**
 * A client that collects the command's output deltas; `slow` stops reading its socket now and then.
 * Its `claim` is the socket's first reader (`connectWs`'s option): each delta is parsed once, as a
 * client parses it, and never reaches the test peer's inbox, which would parse it again and keep it
 * (the bench's client did twice a client's work, on the same two cores as the server, until
 * 2026-11-28). Notes the server's CPU time (`serverPid`) when it sees the command start and complete.
 */
function deltaReader(slow: boolean, serverPid: number) {
  const copy = newCopy();
  let sinceBreak = 0;
  let ws: WsPeer | null = null;
  const events: { started: number | null; completed: number | null; logPath: string | null; serverCpuMs: number | null; clientCpuMs: number | null } = {
    started: null,
    completed: null,
    logPath: null,
    serverCpuMs: null,
    clientCpuMs: null,
  };
  let cpuAtStart: number | null = null;
  let clientCpuAtStart = process.cpuUsage();
  let resolveCompleted: () => void = () => undefined;
  const completed = new Promise<void>((resolve) => (resolveCompleted = resolve));
  const claim = (frame: Buffer): boolean => {
    if (frame.length > DELTA_PREFIX.length && frame.subarray(0, DELTA_PREFIX.length).equals(DELTA_PREFIX)) {
      const text = frame.toString('utf8');
      const delta = (JSON.parse(text) as { params: { delta: string } }).params.delta;
      const bytes = Buffer.from(delta, 'utf8');
      copy.bytes += bytes.length;
      copy.hash.update(bytes);
      sinceBreak += frame.length;
      if (slow && ws && sinceBreak >= SLOW_CLIENT_CHUNK) {
        sinceBreak = 0;
        const { socket } = ws;
        socket.pause();
        setTimeout(() => socket.resume(), SLOW_CLIENT_PAUSE_MS);
      }
      return true;
    }
    // Everything else also reaches the peer (answers to its calls among them).
    if (!frame.includes('"commandExecution"')) return false;
    const message = JSON.parse(frame.toString('utf8')) as { method?: string; params?: { item?: { type: string; logPath?: string | null } } };
    if (message.params?.item?.type !== 'commandExecution') return false;
    if (message.method === 'item/started') {
      events.started = performance.now();
      cpuAtStart = cpuTimeMs(serverPid);
      clientCpuAtStart = process.cpuUsage();
    }
    if (message.method === 'item/completed') {
      events.completed = performance.now();
      const cpuAtEnd = cpuTimeMs(serverPid);
      events.serverCpuMs = cpuAtStart !== null && cpuAtEnd !== null ? cpuAtEnd - cpuAtStart : null;
      const clientCpu = process.cpuUsage(clientCpuAtStart);
      events.clientCpuMs = Math.round((clientCpu.user + clientCpu.system) / 1000);
      events.logPath = message.params.item.logPath ?? null;
      resolveCompleted();
    }
    return false;
  };
  /** The socket `slow` pauses. */
  const readFrom = (peer: WsPeer) => {
    ws = peer;
  };
  return { copy, events, completed, claim, readFrom };
}

/** A WebSocket client whose output deltas `deltaReader` takes. */
async function connectReader(url: string, name: string, slow: boolean, serverPid: number) {
  const reader = deltaReader(slow, serverPid);
  const ws = await connectWs(url, { claim: reader.claim });
  reader.readFrom(ws);
  await ws.peer.initialize(name);
  return { ws, reader };
}

async function agentOverWebSocket(mock: MockModelServer, temp: TempDirs, withSlowClient: boolean, cli?: string) {
  const home = temp.make('wheelhouse-bench-');
  const project = temp.make('wheelhouse-bench-project-');
  fs.writeFileSync(path.join(home, 'config.toml'), mockModelConfig(mock));
  const gcFile = path.join(home, 'gc.log');
  const serve = await startServe({ home, nodeArgs: [...SERVER_NODE_ARGS, ...gcProbeArgs], env: { GC_PROBE_FILE: gcFile }, ...(cli ? { cli } : {}) });
  try {
    const { ws: fast, reader } = await connectReader(serve.wsUrl, 'fast', false, serve.process.child.pid!);
    const readers = [reader];
    if (withSlowClient) readers.push((await connectReader(serve.wsUrl, 'slow', true, serve.process.child.pid!)).reader);
    const idleMemory = memoryMb(serve.process.child.pid!);
    mock.enqueue(execCall(FIXTURE.join(' '), { yield_time_ms: 120_000 }), textReply('Counted.'));
    const { thread } = await fast.peer.call('thread/start', { cwd: project, approvalPolicy: 'never' });
    await fast.peer.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'count' }] });
    await Promise.all(readers.map((reader) => reader.completed));
    const [first] = readers;
    const ms = first!.events.completed! - first!.events.started!;
    const memory = memoryMb(serve.process.child.pid!);
    const log = first!.events.logPath ? fileDigest(first!.events.logPath) : null;
    const replay = await replayAll(fast);
    // Baseline for the replay: reading the same bytes straight from the process log.
    const fileStarted = performance.now();
    if (first!.events.logPath) fs.readFileSync(first!.events.logPath);
    const fileReadMs = performance.now() - fileStarted;
    await serve.stop();
    // Everything the home keeps for it: the whole database (schema included) and the process logs.
    const storedBytes = fileBytes(path.join(home, 'state.sqlite')) + fileBytes(path.join(home, 'state.sqlite-wal')) + dirBytes(path.join(home, 'logs'));
    return {
      ms,
      serverCpuMs: first!.events.serverCpuMs,
      clientCpuMs: first!.events.clientCpuMs,
      serverGc: gcWithin(gcFile, first!.events.started!, first!.events.completed!),
      clients: readers.map((reader) => ({ bytes: reader.copy.bytes, sha256: reader.copy.hash.digest('hex') })),
      log,
      replay,
      fileReadMs,
      storedBytes,
      serveIdleRssMb: idleMemory.rssMb,
      servePeakRssMb: memory.peakRssMb,
    };
  } finally {
    await serve.stop();
  }
}

/** events/replay from the start, page by page, as a reconnecting client does: the deltas rebuilt from the process log. */
async function replayAll(ws: WsPeer) {
  const copy = newCopy();
  const started = performance.now();
  let events = 0;
  for (let after = 0; ; ) {
    const page = (await ws.peer.call('events/replay', { afterSeq: after, limit: 1000 })) as { events: { seq: number; event: string; payload: unknown }[] };
    events += page.events.length;
    for (const event of page.events) {
      if (event.event !== 'item/commandExecution/outputDelta') continue;
      const bytes = Buffer.from((event.payload as { delta: string }).delta, 'utf8');
      copy.bytes += bytes.length;
      copy.hash.update(bytes);
    }
    if (page.events.length < 1000) break;
    after = page.events.at(-1)!.seq;
  }
  return { ms: performance.now() - started, events, bytes: copy.bytes, sha256: copy.hash.digest('hex') };
}

function fileBytes(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

function dirBytes(dir: string): number {
  if (!fs.existsSync(dir)) return 0;
  return fs.readdirSync(dir, { withFileTypes: true }).reduce((sum, entry) => {
    const full = path.join(dir, entry.name);
    return sum + (entry.isDirectory() ? dirBytes(full) : fileBytes(full));
  }, 0);
}

export async function execOverStdio(temp: TempDirs, cli = cliBin) {
  const home = temp.make('wheelhouse-bench-');
  const project = temp.make('wheelhouse-bench-project-');
  const gcFile = path.join(home, 'gc.log');
  const server = spawnTracked(process.execPath, [...SERVER_NODE_ARGS, ...gcProbeArgs, cli, 'app-server', '--home', home], {
    cwd: repoRoot,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, WHEELHOUSE_HOME: home, GC_PROBE_FILE: gcFile },
  });
  const { stdin, stdout } = server.child;
  if (!stdin || !stdout) throw new Error('app-server spawned without pipes');
  const copy = newCopy();
  const answers = new Map<number, (message: unknown) => void>();
  const lines = readline.createInterface({ input: stdout, crlfDelay: Infinity });
  lines.on('line', (line) => {
    if (line.startsWith('{"method":"command/exec/outputDelta"')) {
      const bytes = Buffer.from((JSON.parse(line) as { params: { deltaBase64: string } }).params.deltaBase64, 'base64');
      copy.bytes += bytes.length;
      copy.hash.update(bytes);
      return;
    }
    const message = JSON.parse(line) as { id?: number };
    if (typeof message.id === 'number') answers.get(message.id)?.(message);
  });
  let nextId = 1;
  const call = (method: string, params: unknown) => {
    const id = nextId++;
    stdin.write(`${JSON.stringify({ id, method, params })}\n`);
    return new Promise<unknown>((resolve) => answers.set(id, resolve));
  };
  try {
    await call('initialize', { clientInfo: { name: 'carrier-throughput-bench', version: '0' } });
    // A server's first command also captures the login shell's environment, once per server (0.4-0.6 s
    // here, where the shell's rc files run pyenv): a short command first, so the timed run measures
    // the output path, as the agent's window (item/started, after the spawn) does. Reported beside it.
    const firstStarted = performance.now();
    await call('command/exec', { command: ['true'], cwd: project });
    const firstCommandMs = Math.round(performance.now() - firstStarted);
    const cpuAtStart = cpuTimeMs(server.child.pid);
    const clientCpuAtStart = process.cpuUsage();
    const started = performance.now();
    const answer = (await call('command/exec', { command: FIXTURE, processId: 'flood', tty: true, cwd: project, disableOutputCap: true })) as {
      result?: { exitCode: number };
    };
    const ended = performance.now();
    const clientCpu = process.cpuUsage(clientCpuAtStart);
    const clientCpuMs = Math.round((clientCpu.user + clientCpu.system) / 1000);
    const ms = ended - started;
    const cpuAtEnd = cpuTimeMs(server.child.pid);
    const serverCpuMs = cpuAtStart !== null && cpuAtEnd !== null ? cpuAtEnd - cpuAtStart : null;
    const logDir = path.join(home, 'logs', 'exec');
    const logs = fs.readdirSync(logDir).map((name) => path.join(logDir, name)).filter((file) => fs.statSync(file).size > 0);
    stdin.end();
    await server.exited;
    return { ms, firstCommandMs, serverCpuMs, clientCpuMs, serverGc: gcWithin(gcFile, started, ended), exitCode: answer.result?.exitCode ?? null, clients: [{ bytes: copy.bytes, sha256: copy.hash.digest('hex') }], log: logs.length === 1 ? fileDigest(logs[0]!) : null };
  } finally {
    stdin.end();
    await server.exited;
  }
}

/**
 * bench/bare-relay.mjs over stdio: the same output, batching and encoding as `command/exec`, carried by
 * a Node process that does nothing else. A floor for any Node server on this machine, beside the raw drain.
 */
async function bareRelayOverStdio(cwd: string) {
  const relay = spawnTracked(process.execPath, [BARE_RELAY, '/usr/bin/env', ...FIXTURE], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  const { stdin, stdout } = relay.child;
  if (!stdin || !stdout) throw new Error('bare relay spawned without pipes');
  const copy = newCopy();
  const lines = readline.createInterface({ input: stdout, crlfDelay: Infinity });
  lines.on('line', (line) => {
    const bytes = Buffer.from((JSON.parse(line) as { params: { deltaBase64: string } }).params.deltaBase64, 'base64');
    copy.bytes += bytes.length;
    copy.hash.update(bytes);
  });
  const closed = new Promise<void>((resolve) => lines.once('close', resolve));
  const { stderr } = relay.child;
  if (!stderr) throw new Error('bare relay spawned without stderr');
  // Timed from when it has loaded node-pty and waits: its own start is not the output's cost.
  const said = await new Promise<string>((resolve) => stderr.once('data', (chunk: Buffer) => resolve(String(chunk))));
  if (!said.startsWith('ready')) throw new Error(`bare relay failed to start: ${said}`);
  const cpuAtStart = cpuTimeMs(relay.child.pid);
  const started = performance.now();
  stdin.end();
  await closed;
  const ms = performance.now() - started;
  const cpuAtEnd = cpuTimeMs(relay.child.pid);
  await relay.exited;
  return { ms, relayCpuMs: cpuAtStart !== null && cpuAtEnd !== null ? cpuAtEnd - cpuAtStart : null, clients: [{ bytes: copy.bytes, sha256: copy.hash.digest('hex') }] };
}

const mbPerSecond = (bytes: number, ms: number) => Math.round((bytes / 1e6 / (ms / 1000)) * 10) / 10;
const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const loadAverage = () => Math.round(os.loadavg()[0]! * 100) / 100;

export async function carrierThroughput(options: { temp: TempDirs; rounds?: number }) {
  const expected = expectedDigest();
  const lossless = (copy: { bytes: number; sha256: string } | null) => copy !== null && copy.bytes === expected.bytes && copy.sha256 === expected.sha256;
  const mock = await startMockModelServer();
  const loadAtStart = loadAverage();
  const raw: RunResult[] = [];
  const rawCpuMs: number[] = [];
  const agent: Awaited<ReturnType<typeof agentOverWebSocket>>[] = [];
  const stdio: Awaited<ReturnType<typeof execOverStdio>>[] = [];
  const baselineStdio: Awaited<ReturnType<typeof execOverStdio>>[] = [];
  const baselineAgent: Awaited<ReturnType<typeof agentOverWebSocket>>[] = [];
  const bare: Awaited<ReturnType<typeof bareRelayOverStdio>>[] = [];
  let slow: Awaited<ReturnType<typeof agentOverWebSocket>>;
  try {
    for (let round = 0; round < (options.rounds ?? 3); round += 1) {
      // The raw drain reads in this process, which does nothing else meanwhile: its CPU is the reader's.
      const cpuBefore = process.cpuUsage();
      raw.push(await rawDrain(options.temp.make('wheelhouse-bench-')));
      const cpu = process.cpuUsage(cpuBefore);
      rawCpuMs.push(Math.round((cpu.user + cpu.system) / 1000));
      // With a baseline build, which of the two goes first alternates from round to round.
      const baselineFirst = BASELINE_CLI !== undefined && round % 2 === 1;
      if (BASELINE_CLI && baselineFirst) baselineAgent.push(await agentOverWebSocket(mock, options.temp, false, BASELINE_CLI));
      agent.push(await agentOverWebSocket(mock, options.temp, false));
      if (BASELINE_CLI && !baselineFirst) baselineAgent.push(await agentOverWebSocket(mock, options.temp, false, BASELINE_CLI));
      if (BASELINE_CLI && baselineFirst) baselineStdio.push(await execOverStdio(options.temp, BASELINE_CLI));
      stdio.push(await execOverStdio(options.temp));
      if (BASELINE_CLI && !baselineFirst) baselineStdio.push(await execOverStdio(options.temp, BASELINE_CLI));
      bare.push(await bareRelayOverStdio(options.temp.make('wheelhouse-bench-')));
    }
    slow = await agentOverWebSocket(mock, options.temp, true);
  } finally {
    await mock.close();
  }
  const rawRates = raw.map((run) => mbPerSecond(run.bytes, run.ms));
  const rate = (runs: readonly { ms: number }[]) => runs.map((run) => mbPerSecond(expected.bytes, run.ms));
  const agentRates = rate(agent);
  const stdioRates = rate(stdio);
  return {
    fixture: `${FIXTURE.join(' ')} (${LINES} lines, ${expected.bytes} bytes through a pty)`,
    loadAverage1m: { atStart: loadAtStart, atEnd: loadAverage() },
    rawNodePty: { mbPerSecond: rawRates, bytesLost: raw.map((run) => expected.bytes - run.bytes), readerCpuMs: rawCpuMs },
    // CPU the server spent on the command (all its threads, from /proc), beside the raw reader's: on a
    // loaded machine wall times measure the queue for a core, CPU time what the output path costs.
    agentOverWebSocket: {
      mbPerSecond: agentRates,
      ratioOfMedians: Math.round((median(agentRates) / median(rawRates)) * 100) / 100,
      clientLossless: agent.every((run) => run.clients.every(lossless)),
      logLossless: agent.every((run) => lossless(run.log)),
      serverCpuMs: agent.map((run) => run.serverCpuMs),
      clientCpuMs: agent.map((run) => run.clientCpuMs),
      serverGc: agent.map((run) => run.serverGc),
      servePeakRssMb: agent.map((run) => run.servePeakRssMb),
    },
    // Output stored once: the whole database and the process log against the output's size.
    storagePerOutputByte: agent.map((run) => Math.round((run.storedBytes / expected.bytes) * 1000) / 1000),
    replayFromLog: {
      mbPerSecond: agent.map((run) => mbPerSecond(run.replay.bytes, run.replay.ms)),
      eventsPerReplay: agent.map((run) => run.replay.events),
      lossless: agent.every((run) => lossless(run.replay)),
      baselineReadingTheLogFileMbPerSecond: agent.map((run) => mbPerSecond(expected.bytes, run.fileReadMs)),
    },
    agentOverWebSocketWithSlowClient: {
      // Paced by the slow client by design: this is not a throughput figure of the carrier.
      pacedMbPerSecond: mbPerSecond(expected.bytes, slow.ms),
      slowClientReads: `pauses ${SLOW_CLIENT_PAUSE_MS} ms after every ${SLOW_CLIENT_CHUNK / 1024} KB`,
      fastClientLossless: lossless(slow.clients[0]!),
      slowClientLossless: lossless(slow.clients[1]!),
      logLossless: lossless(slow.log),
      serveIdleRssMb: slow.serveIdleRssMb,
      servePeakRssMb: slow.servePeakRssMb,
    },
    commandExecOverStdio: {
      mbPerSecond: stdioRates,
      ratioOfMedians: Math.round((median(stdioRates) / median(rawRates)) * 100) / 100,
      clientLossless: stdio.every((run) => run.clients.every(lossless) && run.exitCode === 0),
      logLossless: stdio.every((run) => lossless(run.log)),
      // CPU the server spent on the command (request to answer): moves far less with machine load than MB/s.
      serverCpuMs: stdio.map((run) => run.serverCpuMs),
      clientCpuMs: stdio.map((run) => run.clientCpuMs),
      serverGc: stdio.map((run) => run.serverGc),
      // Not in the timed window: the server's first command, which also captured the login shell's environment.
      firstCommandMs: stdio.map((run) => run.firstCommandMs),
    },
    // The floor for a Node server: the same output and encoding carried by a process that does nothing else.
    bareNodeRelayOverStdio: {
      mbPerSecond: rate(bare),
      ratioOfMedians: Math.round((median(rate(bare)) / median(rawRates)) * 100) / 100,
      // Plain node-pty takes the hang-up at exit for end-of-file, as the raw drain does: what it drops shows here.
      bytesLost: bare.map((run) => expected.bytes - run.clients[0]!.bytes),
      relayCpuMs: bare.map((run) => run.relayCpuMs),
    },
    ...(BASELINE_CLI
      ? {
          // Another build's servers in the same rounds, alternating with this one's: compare serverCpuMs.
          agentOverWebSocketBaselineBuild: {
            cli: BASELINE_CLI,
            mbPerSecond: rate(baselineAgent),
            ratioOfMedians: Math.round((median(rate(baselineAgent)) / median(rawRates)) * 100) / 100,
            clientLossless: baselineAgent.every((run) => run.clients.every(lossless)),
            serverCpuMs: baselineAgent.map((run) => run.serverCpuMs),
            serverGc: baselineAgent.map((run) => run.serverGc),
          },
          commandExecOverStdioBaselineBuild: {
            cli: BASELINE_CLI,
            mbPerSecond: rate(baselineStdio),
            ratioOfMedians: Math.round((median(rate(baselineStdio)) / median(rawRates)) * 100) / 100,
            clientLossless: baselineStdio.every((run) => run.clients.every(lossless) && run.exitCode === 0),
            serverCpuMs: baselineStdio.map((run) => run.serverCpuMs),
            serverGc: baselineStdio.map((run) => run.serverGc),
          },
        }
      : {}),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.env.NODE_ENV = 'production';
  ensureCliBuilt();
  const temp = new TempDirs();
  try {
    const rounds = Number(process.env['CARRIER_BENCH_ROUNDS'] ?? 3);
    process.stdout.write(`${JSON.stringify(await carrierThroughput({ temp, rounds }), null, 2)}\n`);
  } finally {
    await killAllChildren();
    temp.cleanup();
  }
}
