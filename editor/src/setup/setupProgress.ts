/**
 * Where the setup wizard stands. The API records which steps were saved; skipping the
 * SMTP step saves nothing, so the skip is remembered in sessionStorage to resume after
 * a reload at the step that actually comes next.
 */
import type { SetupStepsView } from '../api/apiViews.ts';

export const WIZARD_STEPS = ['admin', 'instance', 'smtp', 'registration', 'done'] as const;
export type WizardStep = (typeof WIZARD_STEPS)[number];

const SMTP_SKIPPED_KEY = 'dorfteich.setup.smtpSkipped';

export function isWizardStep(value: unknown): value is WizardStep {
  return (WIZARD_STEPS as readonly unknown[]).includes(value);
}

export function firstOpenStep(steps: SetupStepsView, smtpSkipped: boolean): WizardStep {
  if (!steps.admin) return 'admin';
  if (!steps.instance) return 'instance';
  if (!steps.smtp && !smtpSkipped && !steps.registration) return 'smtp';
  if (!steps.registration) return 'registration';
  return 'done';
}

export function isStepSaved(step: WizardStep, steps: SetupStepsView, smtpSkipped: boolean): boolean {
  if (step === 'done') return false;
  if (step === 'smtp') return steps.smtp || smtpSkipped;
  return steps[step];
}

export function readSmtpSkipped(): boolean {
  try {
    return sessionStorage.getItem(SMTP_SKIPPED_KEY) === '1';
  } catch {
    return false;
  }
}

export function rememberSmtpSkipped(skipped: boolean): void {
  try {
    if (skipped) sessionStorage.setItem(SMTP_SKIPPED_KEY, '1');
    else sessionStorage.removeItem(SMTP_SKIPPED_KEY);
  } catch {
    // Storage can be disabled; the wizard then resumes at the SMTP step, which is harmless.
  }
}
