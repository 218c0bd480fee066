/**
 * The gateway's own log lines on stdout: written asynchronously and gathered into 4 KB writes, so a line never blocks
 * a request and a busy gateway makes one write per page of lines, not one per line. Gathered lines would wait for
 * the next ones to fill the page, and a quiet gateway's last line (a database outage, a warning) could wait for
 * hours: so what is held is also written every `flushEveryMs` (default 1 s; sonic-boom's unref'd `periodicFlush`
 * timer, which never keeps the process alive; 0 turns it off).
 */
import pino from 'pino';

export function gatheredDestination(options: { dest?: number | string; minLength?: number; flushEveryMs?: number } = {}): ReturnType<typeof pino.destination> {
  return pino.destination({ dest: options.dest ?? 1, sync: false, minLength: options.minLength ?? 4096, periodicFlush: options.flushEveryMs ?? 1000 });
}
