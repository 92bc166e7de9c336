import { pino, type Logger } from 'pino';

export type { Logger };

/** JSON logs on stdout; secrets that could reach a log line are redacted. */
export function createLogger(level: string, name = 'api'): Logger {
  return pino({
    name,
    level,
    redact: { paths: ['password', '*.password', 'req.headers.cookie', 'req.headers.authorization'], censor: '[redacted]' },
  });
}
