import { pino, type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };

/**
 * How log lines are written: `pretty` (one human-readable line each) or `json` (one JSON object
 * each, for log collectors). The supervisor decides once from its own terminal and hands the
 * choice to its services in this variable, so they print alike whatever their stdout is.
 */
export const LOG_FORMAT_VARIABLE = 'DT_LOG_FORMAT';
export type LogFormat = 'pretty' | 'json';

/** `pretty` in a terminal, `json` otherwise, unless DT_LOG_FORMAT says which. */
export function logFormat(env: NodeJS.ProcessEnv = process.env, stdoutIsTerminal = process.stdout.isTTY === true): LogFormat {
  const chosen = env[LOG_FORMAT_VARIABLE];
  if (chosen === 'pretty' || chosen === 'json') return chosen;
  return stdoutIsTerminal ? 'pretty' : 'json';
}

/**
 * Logs on stdout, human-readable in a terminal and JSON otherwise; secrets that could reach a
 * log line are redacted (before either format). `destination` is for tests that read what was
 * logged (e.g. that no mailed link ever is): always JSON.
 */
export function createLogger(level: string, name = 'api', destination?: DestinationStream): Logger {
  const options = {
    name,
    level,
    redact: { paths: ['password', '*.password', 'req.headers.cookie', 'req.headers.authorization'], censor: '[redacted]' },
  };
  if (destination) return pino(options, destination);
  if (logFormat() === 'json') return pino(options);
  // Synchronous, so the last lines before an exit are not lost; one line per entry, fields inline.
  return pino(options, pretty({ sync: true, colorize: process.stdout.isTTY === true, singleLine: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname', messageFormat: prettyMessage }));
}

/** A request line reads like an access log (`GET /api/v1/pages 200 12.5 ms`), its fields follow. */
function prettyMessage(entry: Record<string, unknown>, messageKey: string): string {
  if (entry[messageKey] === 'request') return `${String(entry.method)} ${String(entry.path)} ${String(entry.status)} ${String(entry.durationMs)} ms`;
  return String(entry[messageKey] ?? '');
}
