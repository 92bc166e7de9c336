/**
 * Maintenance (a backup restore): on `backup_maintenance` `start` every socket is closed and
 * new ones are refused until `end`. If the end is never announced (the sidecar died), the gate
 * opens again after the failsafe, the same 30 minutes after which a restore counts as stale.
 *
 * Payload: `start` or `end`, or JSON `{"state": "start" | "end"}`.
 */
import type { Logger } from '../api/logger.ts';

export class MaintenanceGate {
  private readonly failsafeMs: number;
  private readonly logger: Logger;
  private failsafe: NodeJS.Timeout | null = null;
  active = false;
  onStart: (() => void) | null = null;

  constructor(failsafeMs: number, logger: Logger) {
    this.failsafeMs = failsafeMs;
    this.logger = logger;
  }

  handle(payload: string): void {
    const state = parseState(payload);
    if (state === 'start') this.start();
    else if (state === 'end') this.end('announced');
    else this.logger.warn({ payload }, 'unknown backup_maintenance payload ignored');
  }

  start(): void {
    this.active = true;
    if (this.failsafe) clearTimeout(this.failsafe);
    this.failsafe = setTimeout(() => this.end('failsafe'), this.failsafeMs);
    this.failsafe.unref();
    this.logger.warn('maintenance started: collaboration paused');
    this.onStart?.();
  }

  end(reason: 'announced' | 'failsafe'): void {
    if (this.failsafe) clearTimeout(this.failsafe);
    this.failsafe = null;
    if (!this.active) return;
    this.active = false;
    this.logger.warn({ reason }, 'maintenance ended: collaboration resumed');
  }

  stop(): void {
    if (this.failsafe) clearTimeout(this.failsafe);
    this.failsafe = null;
  }
}

function parseState(payload: string): string | null {
  const trimmed = payload.trim();
  if (trimmed === 'start' || trimmed === 'end') return trimmed;
  try {
    const parsed = JSON.parse(trimmed) as { state?: unknown };
    return typeof parsed.state === 'string' ? parsed.state : null;
  } catch {
    return null;
  }
}
