/**
 * A list read page by page from an endpoint answering `{ items, nextCursor }`: the first page
 * on `load`, the next on `more`, a failure kept as words next to a retry.
 */
import { callApi } from '../../api/apiClient.ts';
import { describeFailure } from '../../forms/formFailure.ts';
import type { Translate } from '../../i18n/translator.ts';

export class PagedListing<T> {
  items = $state<T[] | null>(null);
  nextCursor = $state<string | null>(null);
  busy = $state(false);
  failure = $state<string | null>(null);
  readonly #path: string;
  readonly #translate: () => Translate;

  /** `path` without a query; the cursor is appended. */
  constructor(path: string, translate: () => Translate) {
    this.#path = path;
    this.#translate = translate;
  }

  load(): Promise<void> {
    return this.#fetch(null);
  }

  more(): Promise<void> {
    return this.#fetch(this.nextCursor);
  }

  /** After a failure: the first page again, or the page that failed. */
  retry(): Promise<void> {
    return this.items === null ? this.load() : this.more();
  }

  /** Puts an item the caller just created at the top, as a reload would list it. */
  prepend(item: T): void {
    this.items = [item, ...(this.items ?? [])];
  }

  async #fetch(cursor: string | null): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    this.failure = null;
    try {
      const listed = await callApi<{ items: T[]; nextCursor: string | null }>('GET', cursor ? `${this.#path}?cursor=${encodeURIComponent(cursor)}` : this.#path);
      this.items = cursor ? [...(this.items ?? []), ...listed.items] : listed.items;
      this.nextCursor = listed.nextCursor;
    } catch (error) {
      this.failure = describeFailure(error, this.#translate()).message;
    } finally {
      this.busy = false;
    }
  }
}
