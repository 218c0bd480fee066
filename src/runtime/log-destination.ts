/**
 * The gateway's own log lines on stdout: written asynchronously and gathered into 4 KB writes, so a line never blocks
 * a request and a busy gateway makes one write per page of lines, not one per line. Gathered lines would wait for
 * the next ones to fill the page, and a quiet gateway's last line (a database outage, a warning) could wait for
 * hours: so what is held is also written every `flushEveryMs` (default 1 s; sonic-boom's unref'd `periodicFlush`
 * timer, which never keeps the process alive; 0 turns it off).
 */
import pino, { type Logger } from 'pino';
import type { GatewayConfig } from '../config/index.ts';

export function gatheredDestination(options: { dest?: number | string; minLength?: number; flushEveryMs?: number } = {}): ReturnType<typeof pino.destination> {
  return pino.destination({ dest: options.dest ?? 1, sync: false, minLength: options.minLength ?? 4096, periodicFlush: options.flushEveryMs ?? 1000 });
}

/** The gateway's logger: JSON lines at LOG_LEVEL on stdout, through the gathered destination. */
export function createLogger(config: Pick<GatewayConfig, 'logLevel'>): Logger {
  return pino({ level: config.logLevel }, gatheredDestination());
}
