/**
 * The submit handling the account and setup forms share: one submission at a time, the
 * previous failure cleared when a new one starts, and a failure turned into the announced
 * message plus per-field messages, with focus moved to the first invalid field.
 */
import type { Translate } from '../i18n/translator.ts';
import { describeFailure, focusFirstInvalidField, localFailure, type FormFailure } from './formFailure.ts';

/** A form's `submit` event, typed as Svelte types `onsubmit` handlers. */
export type FormSubmitEvent = SubmitEvent & { currentTarget: EventTarget & HTMLFormElement };

export interface SubmissionOptions {
  /** Runs when `send` failed, after the failure is set and before focus moves. */
  onFailure?: (failure: FormFailure) => void;
}

export class FormSubmission {
  busy = $state(false);
  failure = $state<FormFailure | null>(null);
  readonly #translate: () => Translate;

  /** A getter rather than a translator, so a translator derived from props stays current. */
  constructor(translate: () => Translate) {
    this.#translate = translate;
  }

  /** An `onsubmit` handler for a form whose whole work is `send`. */
  handler(send: () => Promise<void>, options: SubmissionOptions = {}): (event: FormSubmitEvent) => Promise<void> {
    return (event) => {
      event.preventDefault();
      return this.run(event.currentTarget, send, options);
    };
  }

  /**
   * Runs `send` unless a submission is under way (a second click or Enter is dropped).
   * Take `form` from the event before any await: the browser clears `currentTarget` once
   * the event has been dispatched.
   */
  async run(form: HTMLFormElement, send: () => Promise<void>, options: SubmissionOptions = {}): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    this.failure = null;
    try {
      await send();
    } catch (error) {
      this.failure = describeFailure(error, this.#translate());
      options.onFailure?.(this.failure);
      await focusFirstInvalidField(form);
    } finally {
      this.busy = false;
    }
  }

  /** Shows field problems found in the browser, without sending anything, as the API's would be shown. */
  async reject(form: HTMLFormElement, fields: Record<string, string>): Promise<void> {
    this.failure = localFailure(this.#translate()('form.fieldErrorsSummary'), fields);
    await focusFirstInvalidField(form);
  }
}
