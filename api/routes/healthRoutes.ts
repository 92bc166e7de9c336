/**
 * Liveness and readiness. `database` and `migrations` are hard checks (503 when failing);
 * the others are warnings (overall `degraded`, still 200). Components that do not exist
 * yet say `not_configured`.
 *
 * The probe is public: a failing check says what failed in our own words, never the
 * driver's error (host names, database and user names, server versions); that goes to the log.
 */
import { QueryTypes } from 'sequelize';
import { pendingMigrations } from '../db/migrator.ts';
import { defineRoute, type AnyRoute } from '../http/routeTable.ts';
import type { AppServices } from '../services.ts';

export type CheckStatus = 'ok' | 'degraded' | 'failing' | 'not_configured';
export interface CheckResult {
  status: CheckStatus;
  message?: string;
  details?: Record<string, unknown>;
}

const HARD_CHECKS = ['database', 'migrations'] as const;
const WARNING_CHECKS = ['converter', 'renderer', 'backup', 'backup_remote'] as const;
type CheckName = (typeof HARD_CHECKS)[number] | (typeof WARNING_CHECKS)[number];

const CHECK_TIMEOUT_MS = 3000;

class CheckTimeout extends Error {
  override name = 'CheckTimeout';
}

function withTimeout<T>(promise: Promise<T>, label: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new CheckTimeout(`${label} did not answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS).unref()),
  ]);
}

/** The public verdict for a check that threw; the error itself only reaches the log. */
function failed(services: AppServices, check: CheckName, error: unknown, message: string): CheckResult {
  services.logger.warn({ check, err: error instanceof Error ? error.message : String(error) }, 'readiness check failed');
  return { status: 'failing', message: error instanceof CheckTimeout ? `no answer within ${CHECK_TIMEOUT_MS / 1000} s` : message };
}

async function checkDatabase(services: AppServices): Promise<CheckResult> {
  try {
    await withTimeout(services.sequelize.query('SELECT 1', { type: QueryTypes.SELECT }), 'database');
    return { status: 'ok' };
  } catch (error) {
    return failed(services, 'database', error, 'the database cannot be reached');
  }
}

async function checkMigrations(services: AppServices): Promise<CheckResult> {
  try {
    const pending = await withTimeout(pendingMigrations(services.sequelize), 'migrations');
    return pending.length === 0 ? { status: 'ok' } : { status: 'failing', message: 'migrations pending', details: { pending } };
  } catch (error) {
    return failed(services, 'migrations', error, 'the applied migrations cannot be read');
  }
}

export async function runReadinessChecks(services: AppServices): Promise<{ status: 'ok' | 'degraded' | 'failing'; checks: Record<CheckName, CheckResult> }> {
  const [database, migrations] = await Promise.all([checkDatabase(services), checkMigrations(services)]);
  const notYetBuilt: CheckResult = { status: 'not_configured' };
  const checks: Record<CheckName, CheckResult> = {
    database,
    migrations,
    converter: notYetBuilt,
    renderer: notYetBuilt,
    backup: notYetBuilt,
    backup_remote: notYetBuilt,
  };
  const hardFailing = HARD_CHECKS.some((name) => checks[name].status === 'failing');
  const warning = WARNING_CHECKS.some((name) => checks[name].status === 'failing' || checks[name].status === 'degraded');
  return { status: hardFailing ? 'failing' : warning ? 'degraded' : 'ok', checks };
}

export const healthRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/healthz',
    access: { kind: 'public' },
    setupExempt: true,
    skipAuthentication: true,
    handler: async () => ({ body: { status: 'ok' } }),
  }),
  defineRoute({
    method: 'get',
    path: '/readyz',
    access: { kind: 'public' },
    setupExempt: true,
    skipAuthentication: true,
    handler: async ({ services, res }) => {
      const readiness = await runReadinessChecks(services);
      res.setHeader('Cache-Control', 'no-store');
      return { status: readiness.status === 'failing' ? 503 : 200, body: readiness };
    },
  }),
];
