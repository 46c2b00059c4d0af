import { shellQuote } from '../detached/run-scripts.js';
import type { RemoteShell, ShellStream } from './remote-shell.js';

/**
 * One long-lived channel per connection that pushes the growth of every log
 * followed there: a small Perl program on the far side (Perl is on nearly
 * every Linux and macOS host; nothing is installed) checks the size of each
 * followed log every 10 ms — cheap local stat calls there, no round trip —
 * and sends what is new as it appears, framed with its log's key and byte
 * offset, so followers keep exact offsets whatever they also read by looks.
 * It also says once when a log's end marker (the run's `exit` file) appears,
 * so the end is learned at once rather than at the next look.
 *
 * Without Perl (or when the channel cannot be opened), `unavailable` says
 * why and followers fall back to looking every `pollMs`; after a drop the
 * channel is opened again by the next follow.
 *
 * Frames: `d <key> <offset> <length>\n<bytes>`, `e <key>\n`; commands on its
 * stdin: `f <key> <offset> <end marker hex or -> <path hex>\n`, `s <key>\n`.
 */
const FOLLOW_SCRIPT = String.raw`
use strict; $| = 1; binmode STDIN; binmode STDOUT;
my %f; my $in = ''; my $home = $ENV{HOME} // '';
sub abs_path { my $p = pack('H*', $_[0]); $p =~ m{^/} ? $p : "$home/$p" }
# After whatever the login shell printed first, on a line of its own.
syswrite STDOUT, "\nr\n";
while (1) {
  my $rin = ''; vec($rin, fileno(STDIN), 1) = 1;
  if (select(my $rout = $rin, undef, undef, %f ? 0.01 : undef) > 0) {
    my $got = sysread STDIN, my $buf, 65536;
    exit 0 unless $got;
    $in .= $buf;
    while ($in =~ s/^([^\n]*)\n//) {
      my @a = split / /, $1;
      if ($a[0] eq 'f') { $f{$a[1]} = { o => $a[2], e => ($a[3] eq '-' ? undef : abs_path($a[3])), p => abs_path($a[4]) } }
      elsif ($a[0] eq 's') { delete $f{$a[1]} }
    }
  }
  for my $k (keys %f) {
    my $x = $f{$k};
    # The marker is seen before the log is read: once it is there, what is read is all there is.
    my $ended = defined $x->{e} && -e $x->{e};
    my $size = -s $x->{p} || 0;
    if ($size > $x->{o} && open my $h, '<', $x->{p}) {
      binmode $h; seek $h, $x->{o}, 0;
      my $n = read $h, my $b, 262144; close $h;
      if ($n) { syswrite STDOUT, "d $k $x->{o} $n\n" . $b; $x->{o} += $n; next if $n == 262144 }
    }
    if ($ended) { syswrite STDOUT, "e $k\n"; delete $f{$k} }
  }
}
`;

const hex = (text: string) => Buffer.from(text, 'utf8').toString('hex');

export interface LogStreamWatcher {
  /** Bytes of the log found at `offset`. */
  readonly data: (offset: number, data: Buffer) => void;
  /** The end marker appeared (and every byte before it was sent). */
  readonly ended: () => void;
  /** The channel closed (a drop, or no Perl there): follow again once the connection is back. */
  readonly lost: () => void;
}

export interface LogStreamFollow {
  /** Follow from `offset` again (after a gap). */
  restart(offset: number): void;
  dispose(): void;
}

export class RemoteLogStream {
  private channel: Promise<ShellStream | null> | null = null;
  private readonly watchers = new Map<string, LogStreamWatcher>();
  private nextKey = 1;
  /** Why logs here are followed by looks instead, once known (the far side lacks Perl). */
  unavailable: string | null = null;

  constructor(
    private readonly shell: RemoteShell,
    private readonly warn: (message: string) => void = (message) => console.warn(`[wheelhouse] ${message}`),
  ) {}

  /** Null when the far side cannot stream (see `unavailable`); the caller looks instead. */
  follow(logPath: string, endMarker: string | null, offset: number, watcher: LogStreamWatcher): LogStreamFollow | null {
    if (this.unavailable) return null;
    const key = String(this.nextKey++);
    this.watchers.set(key, watcher);
    const send = (line: string) => {
      void this.open().then((channel) => {
        if (!channel) return;
        if (line.startsWith('f ') && !this.watchers.has(key)) return;
        channel.stdin.write(line);
      });
    };
    const start = (from: number) => send(`f ${key} ${from} ${endMarker ? hex(endMarker) : '-'} ${hex(logPath)}\n`);
    start(offset);
    return {
      restart: start,
      dispose: () => {
        if (!this.watchers.delete(key)) return;
        if (this.watchers.size === 0) this.close();
        else send(`s ${key}\n`);
      },
    };
  }

  /** Ends the channel (the next follow opens it again). */
  close(): void {
    const channel = this.channel;
    this.channel = null;
    void channel?.then((opened) => opened?.close());
  }

  private open(): Promise<ShellStream | null> {
    this.channel ??= this.start().catch(() => {
      // The connection is down: the followers look (and fail) until it is back, then follow again.
      this.channel = null;
      this.loseAll();
      return null;
    });
    return this.channel;
  }

  private async start(): Promise<ShellStream> {
    const channel = await this.shell.stream(`exec perl -e ${shellQuote(FOLLOW_SCRIPT)}`);
    let buffer: Buffer = Buffer.alloc(0);
    let ready = false;
    const mine = this.channel;
    channel.stdout.on('data', (chunk: Buffer) => {
      buffer = buffer.length > 0 ? Buffer.concat([buffer, chunk]) : chunk;
      for (;;) {
        const newline = buffer.indexOf(10);
        if (newline < 0) return;
        const [type, key, offset, length] = buffer.subarray(0, newline).toString('latin1').split(' ');
        if (type === 'r') ready = true;
        else if (type === 'e') this.watchers.get(key!)?.ended();
        else if (type === 'd') {
          const size = Number(length);
          if (buffer.length < newline + 1 + size) return;
          const data = Buffer.from(buffer.subarray(newline + 1, newline + 1 + size));
          buffer = buffer.subarray(newline + 1 + size);
          this.watchers.get(key!)?.data(Number(offset), data);
          continue;
        }
        buffer = buffer.subarray(newline + 1);
      }
    });
    void channel.ended.then((stderr) => {
      // Not ours any more (closed when nobody followed): nothing to tell.
      if (this.channel !== mine) return;
      this.channel = null;
      if (!ready && /perl/i.test(stderr)) {
        const said = stderr.trim().split('\n').at(-1) ?? '';
        this.unavailable = `job output on this machine is fetched by a look every few hundred ms instead of streamed, because perl did not start there (${said})`;
        this.warn(this.unavailable);
      }
      this.loseAll();
    });
    return channel;
  }

  private loseAll(): void {
    for (const watcher of [...this.watchers.values()]) watcher.lost();
  }
}
