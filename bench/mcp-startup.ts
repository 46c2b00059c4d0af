import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { startAppServer } from '../test-support/app-server-process.js';
import { everythingServerScript, filesystemServerScript, isAlive, stdioServerToml } from '../test-support/mcp-servers.js';
import type { TempDirs } from '../test-support/temp-dir.js';
import { ms } from './stats.js';

/** Five stdio MCP servers started by `wheelhouse app-server`, against each one alone. */
export interface McpStartupSummary {
  readonly servers: number;
  /** Spawn of the app-server → every server ready (the start-up summary notification). */
  readonly allReadyMs: number;
  /** The same, with only one server configured, for each server: the slowest. */
  readonly slowestAloneMs: number;
  /** allReady / slowestAlone: 1.0 is perfectly parallel (target ≤ 1.3; 2 shared CPU cores make 5 Node processes compete). */
  readonly ratio: number;
  /** Spawn → initialize answered. */
  readonly initializeMs: number;
  /** No server was connected yet when initialize was answered (mcpServerStatus/list right after). */
  readonly initializeBeforeAnyReady: boolean;
  /** Every server process was gone after the app-server exited. */
  readonly noOrphans: boolean;
}

interface Run {
  readonly allReadyMs: number;
  readonly initializeMs: number;
  readonly connectedAtInitialize: number;
  readonly orphans: number;
}

async function run(home: string, configToml: string): Promise<Run> {
  fs.writeFileSync(`${home}/config.toml`, configToml);
  const started = performance.now();
  const server = startAppServer(home);
  await server.peer.initialize();
  const initializeMs = performance.now() - started;
  const listed = await server.peer.call('mcpServerStatus/list', {});
  const connectedAtInitialize = listed.data.filter((s) => s.runtimeStatus === 'connected').length;
  await server.peer.inbox.notification('mcpServer/startupStatus/completed', 60_000);
  const allReadyMs = performance.now() - started;
  const status = await server.peer.call('mcpServerStatus/list', {});
  const failed = status.data.filter((s) => s.runtimeStatus !== 'connected');
  if (failed.length > 0) throw new Error(`MCP servers failed: ${failed.map((s) => `${s.name}: ${s.toolsError}`).join('; ')}`);
  const pids = childPids(server.process.child.pid!);
  server.endInput();
  await server.exited;
  return { allReadyMs, initializeMs, connectedAtInitialize, orphans: pids.filter(isAlive).length };
}

/** Direct children of a process (Linux /proc); the MCP servers of an app-server. */
function childPids(pid: number): number[] {
  try {
    return fs
      .readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

export async function mcpStartup(temp: TempDirs): Promise<McpStartupSummary> {
  const files = temp.make('wheelhouse-bench-mcp-files-');
  const servers = [
    stdioServerToml('everything1', everythingServerScript),
    stdioServerToml('everything2', everythingServerScript),
    stdioServerToml('everything3', everythingServerScript),
    stdioServerToml('files1', filesystemServerScript, [files]),
    stdioServerToml('files2', filesystemServerScript, [files]),
  ];
  // Warm the file cache so the first measured run is not the one that reads node_modules from disk.
  await run(temp.make('wheelhouse-bench-mcp-'), servers.join(''));
  const alone: number[] = [];
  for (const server of servers) alone.push((await run(temp.make('wheelhouse-bench-mcp-'), server)).allReadyMs);
  const together = await run(temp.make('wheelhouse-bench-mcp-'), servers.join(''));
  const slowestAloneMs = Math.max(...alone);
  return {
    servers: servers.length,
    allReadyMs: ms(together.allReadyMs),
    slowestAloneMs: ms(slowestAloneMs),
    ratio: Math.round((together.allReadyMs / slowestAloneMs) * 100) / 100,
    initializeMs: ms(together.initializeMs),
    initializeBeforeAnyReady: together.connectedAtInitialize === 0,
    noOrphans: together.orphans === 0,
  };
}
