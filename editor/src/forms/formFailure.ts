/**
 * Turns whatever a submit threw into what a form shows: one announced message and
 * per-field messages from a `validation_failed` answer.
 */
import { tick } from 'svelte';
import { ApiRequestError } from '../api/apiClient.ts';
import type { Translate } from '../i18n/translator.ts';

export interface FormFailure {
  message: string;
  fields: Record<string, string>;
  /** The API error code, when the API answered. */
  code: string | null;
  details: Record<string, unknown>;
}

/** A failure the API did not report: found in the browser, or no API answer could be read. */
export function localFailure(message: string, fields: Record<string, string> = {}): FormFailure {
  return { message, fields, code: null, details: {} };
}

export function describeFailure(error: unknown, t: Translate): FormFailure {
  if (!(error instanceof ApiRequestError)) return localFailure(t('error.unexpected'));
  if (error.code === 'network_error') return localFailure(t('error.network'));
  if (error.code === 'unexpected_response' || !error.message) return localFailure(t('error.unexpected'));
  const retry = error.retryAfterSeconds === null ? '' : ` ${t('error.retryAfter', { seconds: error.retryAfterSeconds })}`;
  return { message: error.message + retry, fields: error.fieldProblems, code: error.code, details: error.details };
}

/** Moves focus to the first field marked invalid, so keyboard and screen-reader users land on it. */
export async function focusFirstInvalidField(form: HTMLFormElement | undefined): Promise<void> {
  await tick();
  form?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
}
