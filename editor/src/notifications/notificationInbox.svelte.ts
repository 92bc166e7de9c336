/**
 * The signed-in user's notifications as the bell and its panel show them: the unread count
 * (polled), the list read page by page (unread first, then newest; `GET /notifications`), and
 * marking read, one entry or all. A mark is shown at once and taken back when the API refuses.
 */
import { callApi } from '../api/apiClient.ts';
import type { NotificationListView, NotificationView } from '../api/apiViews.ts';
import { describeFailure } from '../forms/formFailure.ts';
import type { Translate } from '../i18n/translator.ts';

const PAGE_SIZE = 20;

export class NotificationInbox {
  /** Null until the first answer. */
  unreadCount = $state<number | null>(null);
  items = $state<NotificationView[] | null>(null);
  nextCursor = $state<string | null>(null);
  listBusy = $state(false);
  listFailure = $state<string | null>(null);
  /** A mark read that failed, in words. */
  markFailure = $state<string | null>(null);
  /** When the list or the count was last read, for "5 minutes ago". */
  now = $state(new Date());
  readonly #translate: () => Translate;

  constructor(translate: () => Translate) {
    this.#translate = translate;
  }

  /** Reads only the count (one entry comes along; the API has no count-only route). */
  async refreshCount(): Promise<void> {
    const listed = await callApi<NotificationListView>('GET', '/notifications?limit=1');
    this.unreadCount = listed.unreadCount;
    this.now = new Date();
  }

  /** The first page again (the panel opened), or the next one. */
  async load(more = false): Promise<void> {
    if (this.listBusy) return;
    this.listBusy = true;
    this.listFailure = null;
    const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
    if (more && this.nextCursor) query.set('cursor', this.nextCursor);
    try {
      const listed = await callApi<NotificationListView>('GET', `/notifications?${query}`);
      const known = more ? (this.items ?? []) : [];
      const seen = new Set(known.map((item) => item.id));
      // A page read later can repeat an entry that changed in between; the first one shown stays.
      this.items = [...known, ...listed.items.filter((item) => !seen.has(item.id))];
      this.nextCursor = listed.nextCursor;
      this.unreadCount = listed.unreadCount;
      this.now = new Date();
    } catch (error) {
      this.listFailure = describeFailure(error, this.#translate()).message;
    } finally {
      this.listBusy = false;
    }
  }

  /** Marks one entry read; false when the API refused (the entry is unread again, the failure in `markFailure`). */
  async markRead(id: string): Promise<boolean> {
    const entry = this.items?.find((item) => item.id === id);
    if (entry?.readAt) return true;
    this.markFailure = null;
    this.#setRead((item) => item.id === id, new Date().toISOString());
    if (entry && this.unreadCount) this.unreadCount--;
    try {
      await callApi('POST', `/notifications/${encodeURIComponent(id)}/read`);
      return true;
    } catch (error) {
      this.#setRead((item) => item.id === id, null);
      if (entry && this.unreadCount !== null) this.unreadCount++;
      this.markFailure = describeFailure(error, this.#translate()).message;
      return false;
    }
  }

  async markAllRead(): Promise<void> {
    const before = { items: this.items, unreadCount: this.unreadCount };
    this.markFailure = null;
    this.#setRead((item) => item.readAt === null, new Date().toISOString());
    this.unreadCount = 0;
    try {
      await callApi('POST', '/notifications/read-all');
    } catch (error) {
      this.items = before.items;
      this.unreadCount = before.unreadCount;
      this.markFailure = describeFailure(error, this.#translate()).message;
    }
  }

  #setRead(which: (item: NotificationView) => boolean, readAt: string | null): void {
    if (!this.items) return;
    this.items = this.items.map((item) => (which(item) ? { ...item, readAt } : item));
  }
}
