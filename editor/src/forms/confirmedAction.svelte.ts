/**
 * Ask, then act: the confirmation step the app's destructive or far-reaching actions go
 * through (deleting a file or a comment, restoring a version). Asking moves the focus to the
 * confirming button, so Enter acts; Cancel gives it back to the button that asked. One run at a
 * time (a second click or Enter while working is dropped); a refusal is kept in words for the
 * entry to show next to its cause, with the confirmation still open to try again or cancel.
 *
 * The entry binds its two buttons: `bind:this={action.asker}` and `bind:this={action.confirmer}`.
 */
import { tick } from 'svelte';
import type { Translate } from '../i18n/translator.ts';
import { describeFailure } from './formFailure.ts';

export class ConfirmedAction {
  confirming = $state(false);
  busy = $state(false);
  /** The last refusal, in words. */
  failure = $state<string | null>(null);
  /** The button that asks; the focus returns to it on cancel. */
  asker = $state<HTMLButtonElement | undefined>();
  /** The button that confirms; the focus moves to it when asked. */
  confirmer = $state<HTMLButtonElement | undefined>();
  readonly #translate: () => Translate;

  /** A getter rather than a translator, so a translator derived from props stays current. */
  constructor(translate: () => Translate) {
    this.#translate = translate;
  }

  /** Opens the confirmation (arrow functions: usable as `onclick={action.ask}`). */
  ask = async (): Promise<void> => {
    this.failure = null;
    this.confirming = true;
    await tick();
    this.confirmer?.focus();
  };

  cancel = async (): Promise<void> => {
    this.confirming = false;
    await tick();
    this.asker?.focus();
  };

  /** Runs `act` once; when it resolves the confirmation closes (an entry that goes away takes it along). */
  async run(act: () => Promise<void>): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    this.failure = null;
    try {
      await act();
      this.confirming = false;
    } catch (error) {
      this.failure = describeFailure(error, this.#translate()).message;
    } finally {
      this.busy = false;
    }
  }
}
