/**
 * How far the carriers lag behind: the output a connection's carrier holds
 * that its client has not taken yet. Command output is acknowledged to the
 * supervisor only once the carriers it goes to have caught up, so a client
 * that reads slowly pauses the command (the supervisor stops reading its pty)
 * instead of output piling up in this process or being dropped.
 */
export interface ClientBacklogSource {
  /** Unsent bytes of one connection, or (null) the largest of any connection. */
  unsentBytes(connectionId: string | null): number;
  /** Calls back once that backlog may have shrunk: its carrier drained, or the connection closed. */
  onceDrained(connectionId: string | null, callback: () => void): void;
}

/**
 * Carrier backlog above which acknowledgements wait. The supervisor pauses
 * the command once its high-water mark (2 MB) is unacknowledged, so a
 * client's carrier never holds much more than this plus that (a JSON or
 * base64 encoding of it): under 3.5 MB for a client that stopped reading.
 * At 64 KB, one 64 KB delta (87 KB as base64) already held the acks back, so
 * a flood paused whenever its client waited for a core.
 */
export const MAX_CLIENT_BACKLOG_BYTES = 512 * 1024;

/**
 * Wraps a flow-controlled subscription's `ack` so bytes are acknowledged only
 * while every carrier concerned (one connection, or null: all of them) holds
 * at most `MAX_CLIENT_BACKLOG_BYTES`; otherwise they are owed until a carrier
 * drains. Without any source (an in-process caller) everything is acknowledged at once.
 */
export function ackWhenClientsCatchUp(
  sources: Iterable<ClientBacklogSource>,
  connectionId: string | null,
  ack: (bytes: number) => void,
): (bytes: number) => void {
  let owed = 0;
  let waiting = false;
  const laggingSource = (): ClientBacklogSource | null => {
    for (const source of sources) if (source.unsentBytes(connectionId) > MAX_CLIENT_BACKLOG_BYTES) return source;
    return null;
  };
  const settle = (): void => {
    const lagging = laggingSource();
    if (lagging) {
      waiting = true;
      lagging.onceDrained(connectionId, () => {
        waiting = false;
        settle();
      });
      return;
    }
    const bytes = owed;
    owed = 0;
    if (bytes > 0) ack(bytes);
  };
  return (bytes) => {
    owed += bytes;
    if (!waiting) settle();
  };
}
