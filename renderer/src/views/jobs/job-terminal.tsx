import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef } from 'react';
import { client } from '../../services.js';

const LOG_PAGE = 256 * 1024;

/**
 * A run's output in a terminal: the log on disk is replayed first, then live
 * output follows, joined by byte offset (`job/output/delta`'s `offset`).
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
    // Bytes of the log written to the terminal so far: a delta is written from there on only, so each
    // byte shows once — deltas that arrive while the log is read, or again after a restart, included.
    let shown = 0;
    let replayed = false;
    let disposed = false;
    const live: { offset: number; delta: string }[] = [];
    const encoder = new TextEncoder();
    const decoder = new TextDecoder();
    const show = ({ offset, delta }: { offset: number; delta: string }) => {
      const bytes = encoder.encode(delta);
      if (offset + bytes.length <= shown) return;
      terminal.write(offset >= shown ? delta : decoder.decode(bytes.subarray(shown - offset)));
      shown = Math.max(shown, offset + bytes.length);
    };
    const off = client.on('job/output/delta', (params) => {
      if (params.jobId !== jobId || params.attempt !== run) return;
      if (replayed) show(params);
      else live.push(params);
    });
    void (async () => {
      if (run > 0) {
        for (;;) {
          const page = await client.request('job/log', { jobId, attempt: run, offset: shown, limit: LOG_PAGE }).catch(() => null);
          if (disposed || !page) break;
          show({ offset: page.offset, delta: page.data });
          if (shown >= page.size || page.data.length === 0) break;
        }
      }
      // What arrived while the log was read: only the part past it.
      for (const delta of live.splice(0)) show(delta);
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
