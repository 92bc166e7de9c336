import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/**
 * JSON logs on stdout; secrets that could reach a log line are redacted. `destination` is for
 * tests that read what was logged (e.g. that no mailed link ever is).
 */
export function createLogger(level: string, name = 'api', destination?: DestinationStream): Logger {
  const options = {
    name,
    level,
    redact: { paths: ['password', '*.password', 'req.headers.cookie', 'req.headers.authorization'], censor: '[redacted]' },
  };
  return destination ? pino(options, destination) : pino(options);
}
