import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef } from 'react';
import { client } from '../../services.js';

const LOG_PAGE = 256 * 1024;

/**
 * A run's output in a terminal: the log on disk is replayed first, then live
 * output follows. Deltas that arrive before the last page of the replay was
 * read are already in it; only later ones are written.
 */
export function JobTerminal({ jobId, run }: { readonly jobId: string; readonly run: number }) {
  const host = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const element = host.current;
    if (!element) return;
    const terminal = new Terminal({
      convertEol: false,
      disableStdin: true,
      scrollback: 10_000,
      fontSize: 12,
      fontFamily: getComputedStyle(document.documentElement).getPropertyValue('--font-mono') || 'monospace',
      theme: { background: '#0b0c0e', foreground: '#e7e8ea', cursor: '#0b0c0e' },
    });
    const fit = new FitAddon();
    terminal.loadAddon(fit);
    terminal.open(element);
    fit.fit();
    let replayed = false;
    let disposed = false;
    const live: string[] = [];
    const off = client.on('job/output/delta', (params) => {
      if (params.jobId !== jobId || params.attempt !== run) return;
      if (replayed) terminal.write(params.delta);
      else live.push(params.delta);
    });
    void (async () => {
      if (run > 0) {
        let offset = 0;
        for (;;) {
          const page = await client.request('job/log', { jobId, attempt: run, offset, limit: LOG_PAGE }).catch(() => null);
          if (disposed || !page) break;
          terminal.write(page.data);
          offset += new TextEncoder().encode(page.data).length;
          if (offset >= page.size || page.data.length === 0) break;
        }
      }
      // Whatever arrived while the log was read is in what was read.
      live.length = 0;
      replayed = true;
    })();
    const resize = new ResizeObserver(() => fit.fit());
    resize.observe(element);
    return () => {
      disposed = true;
      off();
      resize.disconnect();
      terminal.dispose();
    };
  }, [jobId, run]);

  return <div className="job-terminal" ref={host} data-testid="job-terminal" />;
}
