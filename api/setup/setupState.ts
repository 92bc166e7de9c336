/**
 * The setup wizard's state, read from instance settings. Completion is final, so once seen
 * it is remembered for the life of the process.
 */
import type { Sequelize } from 'sequelize';
import { ApiError } from '../http/apiError.ts';
import { getAllSettingsWithAdmin, getSetting } from '../settings/instanceSettings.ts';

let completedSeen = false;

export async function isSetupComplete(): Promise<boolean> {
  if (completedSeen) return true;
  completedSeen = (await getSetting('setup.completedAt')) !== null;
  return completedSeen;
}

/** Throws 503 `setup_required` while setup is pending. */
export async function assertSetupComplete(): Promise<void> {
  if (!(await isSetupComplete())) throw new ApiError('setup_required');
}

/** Throws 410 `setup_completed` once setup is done: every step is locked then. */
export async function assertSetupPending(): Promise<void> {
  if (await isSetupComplete()) throw new ApiError('setup_completed');
}

export async function isSetupAdmin(userId: string): Promise<boolean> {
  return (await getSetting('setup.adminId')) === userId;
}

export interface SetupStateView {
  completed: boolean;
  completedAt: string | null;
  /** Which steps were saved. `smtp` means a relay was saved; a skipped step shows in `smtpSkipped`. */
  steps: { admin: boolean; instance: boolean; smtp: boolean; registration: boolean };
  /** The instance can send mail: a relay saved here, or the `SMTP_*` fallback. */
  smtpConfigured: boolean;
  /** The setup admin went on without saving a relay (kept across reloads and devices). */
  smtpSkipped: boolean;
  instance: { name: string | null; baseUrl: string | null; defaultLocale: 'de' | 'en' };
  registrationMode: 'open' | 'closed';
}

export async function readSetupState(sequelize: Sequelize, smtpFallbackConfigured: boolean): Promise<SetupStateView> {
  const { settings, adminExists } = await getAllSettingsWithAdmin(sequelize);
  const instanceSaved = settings['setup.instanceSavedAt'] !== null;
  return {
    completed: settings['setup.completedAt'] !== null,
    completedAt: settings['setup.completedAt'],
    steps: {
      admin: adminExists,
      instance: instanceSaved,
      smtp: settings['smtp.settings'] !== null,
      registration: settings['setup.registrationSavedAt'] !== null,
    },
    smtpConfigured: settings['smtp.settings'] !== null || smtpFallbackConfigured,
    smtpSkipped: settings['smtp.settings'] === null && settings['setup.smtpSkippedAt'] !== null,
    instance: {
      name: instanceSaved ? settings['instance.name'] : null,
      baseUrl: settings['instance.baseUrl'],
      defaultLocale: settings['instance.defaultLocale'],
    },
    registrationMode: settings['registration.mode'],
  };
}

/** For tests that reuse a process across databases. */
export function forgetSetupCompletion(): void {
  completedSeen = false;
}
