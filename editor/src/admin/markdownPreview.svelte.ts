/**
 * The live preview of one site text: rendered by the API's content pipeline
 * (`POST /admin/settings/preview`), so it shows exactly what visitors will see. Renders wait
 * for a pause in typing, and only the newest answer is shown: a slow answer to an older
 * text never overwrites a newer one.
 */
import { callApi } from '../api/apiClient.ts';
import { describeFailure } from '../forms/formFailure.ts';
import type { Translate } from '../i18n/translator.ts';

export type SitePage = 'home' | 'imprint' | 'privacy';

export const PREVIEW_DELAY_MS = 300;

interface PreviewAnswer {
  html: string;
  /** The landing page's built-in welcome stands in for an empty text. */
  isDefault: boolean;
}

export class MarkdownPreview {
  html = $state('');
  isDefault = $state(false);
  /** From the first keystroke of a burst until its render arrives (or fails). */
  updating = $state(false);
  /** Why the latest render failed, in words; the last good preview stays shown. */
  failure = $state<string | null>(null);
  readonly #page: SitePage;
  readonly #translate: () => Translate;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Numbers each render; an answer is shown only if no newer render has started since. */
  #latest = 0;

  constructor(page: SitePage, translate: () => Translate) {
    this.#page = page;
    this.#translate = translate;
  }

  /** Renders `markdown` after `delayMs` unless another call comes first. */
  schedule(markdown: string, delayMs = PREVIEW_DELAY_MS): void {
    clearTimeout(this.#timer);
    this.updating = true;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#render(markdown);
    }, delayMs);
  }

  dispose(): void {
    clearTimeout(this.#timer);
    this.#latest += 1;
  }

  async #render(markdown: string): Promise<void> {
    const render = ++this.#latest;
    try {
      const answer = await callApi<PreviewAnswer>('POST', '/admin/settings/preview', { markdown, page: this.#page });
      if (render !== this.#latest) return;
      this.html = answer.html;
      this.isDefault = answer.isDefault;
      this.failure = null;
    } catch (error) {
      if (render !== this.#latest) return;
      this.failure = describeFailure(error, this.#translate()).message;
    } finally {
      // Still waiting for a pause in typing: a newer render is on its way.
      if (render === this.#latest && this.#timer === undefined) this.updating = false;
    }
  }
}
