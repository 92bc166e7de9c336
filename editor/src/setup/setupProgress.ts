/**
 * Where the setup wizard stands, from `GET /setup`: which steps were saved, and whether the
 * mail step was skipped (saved by the API too, so a reload or another device resumes at the
 * step that actually comes next).
 */
import type { SetupStepsView } from '../api/apiViews.ts';

export const WIZARD_STEPS = ['admin', 'instance', 'smtp', 'registration', 'done'] as const;
export type WizardStep = (typeof WIZARD_STEPS)[number];

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
