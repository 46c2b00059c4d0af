import fs from 'node:fs';

const EPOLLIN = 0x1;

/**
 * Whether the event loop of process `pid` waits for `fd` to become readable:
 * whether the fd is in the process's epoll set with EPOLLIN (Linux, read from
 * /proc/<pid>/fdinfo). A Node process that stopped reading a stream (back
 * pressure) drops the fd from the set, so this tells "it is not reading now"
 * without waiting to see that nothing arrives.
 */
export function readsFd(pid: number, fd: number): boolean {
  if (process.platform !== 'linux') throw new Error('readsFd needs Linux (/proc/<pid>/fdinfo)');
  const fds = fs.readdirSync(`/proc/${pid}/fd`);
  return fds.some((entry) => {
    let target: string;
    try {
      target = fs.readlinkSync(`/proc/${pid}/fd/${entry}`);
    } catch {
      return false;
    }
    if (target !== 'anon_inode:[eventpoll]') return false;
    const info = fs.readFileSync(`/proc/${pid}/fdinfo/${entry}`, 'utf8');
    return [...info.matchAll(/^tfd:\s+(\d+)\s+events:\s+([0-9a-f]+)/gm)].some((match) => Number(match[1]) === fd && (parseInt(match[2]!, 16) & EPOLLIN) !== 0);
  });
}
