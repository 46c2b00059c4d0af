import fs from 'node:fs';
import { readProcFile } from './proc-file.js';

/**
 * Finding and signalling every process a command started. Each supervised
 * child leads its own session and process group (node-pty calls setsid;
 * pipe children are spawned detached), so the group signal reaches the
 * ordinary tree. On Linux /proc adds what left the group — descendants that
 * called setsid themselves (bubblewrap's sandboxed command, daemons) and
 * orphans still in the session — identified by start time so a reused pid
 * is never signalled.
 */

export interface ProcEntry {
  readonly pid: number;
  readonly ppid: number;
  readonly pgrp: number;
  readonly session: number;
  /** The foreground process group of the process's terminal (-1: none). */
  readonly tpgid: number;
  readonly state: string;
  readonly startTime: string;
}

/** A process seen at one moment; `startTime` tells a reused pid apart. */
export interface ProcessIdentity {
  readonly pid: number;
  readonly startTime: string;
}

export const hasProc = process.platform === 'linux' && fs.existsSync('/proc/self/stat');

/** One process's /proc entry (Linux), or undefined when it does not exist. */
export function readStat(pid: number | string): ProcEntry | undefined {
  let text: string;
  try {
    text = readProcFile(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  // The command name is in parentheses and may itself contain spaces and ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return {
    pid: Number(pid),
    state: fields[0]!,
    ppid: Number(fields[1]),
    pgrp: Number(fields[2]),
    session: Number(fields[3]),
    tpgid: Number(fields[5]),
    startTime: fields[19]!,
  };
}

function allProcesses(): ProcEntry[] {
  if (!hasProc) return [];
  const entries: ProcEntry[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue;
    const entry = readStat(name);
    if (entry) entries.push(entry);
  }
  return entries;
}

/**
 * Every live process that belongs to the tree led by `leader`: its session,
 * its process group, and all its descendants. Zombies are left out (they are
 * already dead). Empty where /proc does not exist.
 */
export function treeMembers(leader: number): ProcessIdentity[] {
  const entries = allProcesses();
  const children = new Map<number, ProcEntry[]>();
  for (const entry of entries) {
    const list = children.get(entry.ppid);
    if (list) list.push(entry);
    else children.set(entry.ppid, [entry]);
  }
  const members = new Map<number, ProcEntry>();
  for (const entry of entries) {
    if (entry.session === leader || entry.pgrp === leader || entry.pid === leader) members.set(entry.pid, entry);
  }
  const queue = [...members.values()];
  while (queue.length > 0) {
    for (const child of children.get(queue.pop()!.pid) ?? []) {
      if (members.has(child.pid)) continue;
      members.set(child.pid, child);
      queue.push(child);
    }
  }
  return [...members.values()].filter((entry) => entry.state !== 'Z').map(({ pid, startTime }) => ({ pid, startTime }));
}

/**
 * The program in the foreground of the terminal a shell (`leader`) controls:
 * what the person started at its prompt and is still running, by name. Null
 * when the shell itself is in front (waiting at its prompt) or is gone;
 * undefined where /proc does not exist (the caller asks the terminal instead).
 */
export function foregroundProgram(leader: number): string | null | undefined {
  if (!hasProc) return undefined;
  const entry = readStat(leader);
  if (!entry || entry.state === 'Z' || entry.tpgid <= 0 || entry.tpgid === entry.pgrp) return null;
  try {
    return readProcFile(`/proc/${entry.tpgid}/comm`, 'utf8').trim() || 'a program';
  } catch {
    return 'a program'; // the group's leader left while its pipeline runs on
  }
}

/** True while the process exists and is not a zombie (it was the same process when seen). */
export function isAlive(identity: ProcessIdentity | number): boolean {
  const pid = typeof identity === 'number' ? identity : identity.pid;
  if (!hasProc) {
    try {
      process.kill(pid, 0);
      return true;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'EPERM';
    }
  }
  const entry = readStat(pid);
  if (!entry || entry.state === 'Z') return false;
  return typeof identity === 'number' || entry.startTime === identity.startTime;
}

function quietKill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone, or never ours: nothing to do.
  }
}

/**
 * Sends `signal` to the group led by `leader` and to each known member that
 * is still the same process. Returns the members signalled (for a later
 * SIGKILL after the leader, and the tree links, are gone).
 */
export function signalTree(leader: number, signal: NodeJS.Signals, known: readonly ProcessIdentity[] = []): ProcessIdentity[] {
  const members = new Map<number, ProcessIdentity>();
  for (const identity of [...known, ...treeMembers(leader)]) members.set(identity.pid, identity);
  quietKill(-leader, signal);
  for (const identity of members.values()) {
    if (isAlive(identity)) quietKill(identity.pid, signal);
  }
  return [...members.values()];
}
