import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from '../logger.ts';

const INCOMING_ID = /^[A-Za-z0-9._-]{8,128}$/;

/** Gives each request an id (a sane incoming `X-Request-Id` is kept) and logs its outcome (at debug unless it failed). */
export function requestLogging(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.headers['x-request-id'];
    req.id = typeof incoming === 'string' && INCOMING_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', req.id);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      // One line per request only at LOG_LEVEL=debug: at info a running instance prints what
      // happens to it, not every click. Faults show at every level; 503 is a state we answer on
      // purpose (setup pending, maintenance, a failing readiness check), not a fault: a
      // warning, so a healthy start and stop print no error lines.
      const level = res.statusCode === 503 ? 'warn' : res.statusCode >= 500 ? 'error' : 'debug';
      logger[level]({ reqId: req.id, method: req.method, path: req.path, status: res.statusCode, durationMs: Math.round(durationMs * 10) / 10 }, 'request');
    });
    next();
  };
}

declare module 'express-serve-static-core' {
  interface Request {
    /** Set by `requestLogging`; echoed as `X-Request-Id` and in every log line. */
    id: string;
  }
}
