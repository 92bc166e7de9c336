/**
 * The page's comment threads, shared by the islands of the page screen: the editor (its
 * highlights and new-comment form), the side panel and the header's count. Islands are
 * separate Svelte roots but load this module once per page, so they share one instance per
 * page id and one request (`GET /pages/:id/comments?status=all`; the filter is applied here).
 *
 * Requests between islands are state, not events: a panel or editor that hydrates later still
 * finds what was asked of it (a `seq` tells a new request from one already handled).
 * Others' comments show after each own write, every 30 s while the page is shown, and when the
 * reader comes back to the tab.
 */
import { callApi } from '../api/apiClient.ts';
import { CoalescedReads } from '../api/coalescedReads.ts';
import { startVisiblePolling } from '../api/visiblePolling.ts';
import { describeFailure } from '../forms/formFailure.ts';
import type { Translate } from '../i18n/translator.ts';
import { anchoredThreads, openThreadCount, type AnchoredThread, type AnchorState } from './commentThreadsModel.ts';
import type { CommentAnchor, CommentListView, CommentThread, CommentView } from './commentViews.ts';

export interface IslandRequest {
  seq: number;
  threadId: string | null;
}

export class PageComments {
  threads = $state<CommentThread[] | null>(null);
  canComment = $state(false);
  canResolve = $state(false);
  loading = $state(false);
  /** Why the list could not be read, in words. */
  failure = $state<string | null>(null);
  /** Replies of resolved (collapsed) threads opened on demand, by root id. */
  expandedReplies = $state<Record<string, CommentView[]>>({});
  /** Where each anchored thread's passage stands, as the live editor found it; empty while no editor is live. */
  anchorStates = $state<Record<string, AnchorState>>({});
  editorLive = $state(false);
  /** The thread whose passage and entry are marked as the current one. */
  activeId = $state<string | null>(null);
  /** Asks the side panel to show the comments (and a thread); `focus` moves keyboard focus there. */
  panelRequest = $state<(IslandRequest & { focus: boolean }) | null>(null);
  /** Asks the editor to select and show a thread's passage. */
  passageRequest = $state<{ seq: number; threadId: string } | null>(null);

  readonly openCount = $derived(this.threads ? openThreadCount(this.threads) : null);
  readonly anchored: AnchoredThread[] = $derived(this.threads ? anchoredThreads(this.threads) : []);

  readonly pageId: string;
  #translate: () => Translate;
  readonly #reads = new CoalescedReads(() => this.#read());
  #seq = 0;
  #readAt = 0;

  constructor(pageId: string, translate: () => Translate) {
    this.pageId = pageId;
    this.#translate = translate;
  }

  /** Loads once; later calls while loaded do nothing (use `load` to read again). */
  ensureLoaded(): void {
    if (this.threads === null && !this.#reads.running) void this.load();
  }

  /** Reads the list again; a call while a read is under way waits for a fresh one after it. */
  load(): Promise<void> {
    return this.#reads.request();
  }

  async #read(): Promise<void> {
    this.loading = true;
    try {
      const listed = await callApi<CommentListView>('GET', `/pages/${this.pageId}/comments?status=all`);
      const expandedIds = Object.keys(this.expandedReplies).filter((id) => listed.items.some((thread) => thread.id === id && thread.collapsed));
      const expanded = await Promise.all(expandedIds.map(async (id) => [id, await this.#repliesOf(id)] as const));
      this.threads = listed.items;
      this.canComment = listed.canComment;
      this.canResolve = listed.canResolve;
      this.expandedReplies = Object.fromEntries(expanded);
      this.failure = null;
      this.#readAt = Date.now();
    } catch (error) {
      this.failure = describeFailure(error, this.#translate()).message;
    } finally {
      this.loading = false;
    }
  }

  /** Reads the list again unless it was read within `freshMs` (or never: that is `ensureLoaded`'s). */
  refresh(freshMs: number): void {
    if (this.threads !== null && Date.now() - this.#readAt > freshMs) void this.load();
  }

  async #repliesOf(rootId: string): Promise<CommentView[]> {
    const listed = await callApi<CommentListView>('GET', `/pages/${this.pageId}/comments?status=resolved&expand=${encodeURIComponent(rootId)}`);
    return listed.items.find((thread) => thread.id === rootId)?.replies ?? [];
  }

  /** Shows a collapsed thread's replies. Throws the API's refusal. */
  async expand(rootId: string): Promise<void> {
    const replies = await this.#repliesOf(rootId);
    this.expandedReplies = { ...this.expandedReplies, [rootId]: replies };
  }

  collapse(rootId: string): void {
    const { [rootId]: _dropped, ...rest } = this.expandedReplies;
    this.expandedReplies = rest;
  }

  /** A new thread (with `anchor`, or on the whole page) or a reply (`parentId`). Throws the API's refusal. */
  async create(input: { body: string; anchor?: CommentAnchor; parentId?: string }): Promise<CommentView> {
    const created = await callApi<CommentView>('POST', `/pages/${this.pageId}/comments`, input);
    await this.load();
    return created;
  }

  async edit(id: string, body: string): Promise<void> {
    await callApi<CommentView>('PATCH', `/comments/${id}`, { body });
    await this.load();
  }

  async remove(id: string): Promise<void> {
    await callApi('DELETE', `/comments/${id}`);
    if (this.activeId === id) this.activeId = null;
    await this.load();
  }

  async setResolved(id: string, resolved: boolean): Promise<void> {
    await callApi<CommentView>('POST', `/comments/${id}/${resolved ? 'resolve' : 'reopen'}`);
    this.collapse(id);
    // A resolved passage is no longer marked, not even as the current one.
    if (resolved && this.activeId === id) this.activeId = null;
    await this.load();
  }

  /** Marks a thread current and asks the panel to show it (a highlight was clicked, a comment written). */
  showThread(threadId: string, focus: boolean): void {
    this.activeId = threadId;
    this.panelRequest = { seq: ++this.#seq, threadId, focus };
  }

  /** The header's count: the panel on the comments tab, focused. */
  showPanel(): void {
    this.panelRequest = { seq: ++this.#seq, threadId: null, focus: true };
  }

  /** A thread's quote was chosen in the panel: the editor selects its passage. */
  showPassage(threadId: string): void {
    this.activeId = threadId;
    this.passageRequest = { seq: ++this.#seq, threadId };
  }
}

const byPage = new Map<string, PageComments>();

/** Others' comments arrive with the spec's polling interval while the page is shown (there is no push). */
const POLL_MS = 30_000;
/** Coming back to the tab reads them at once, unless the list is this fresh. */
const REFRESH_AFTER_MS = 5_000;

/** The one instance for the page; the first island to ask makes it. The server render gets a throwaway one (nothing is loaded there). */
export function pageCommentsFor(pageId: string, translate: () => Translate): PageComments {
  if (typeof window === 'undefined') return new PageComments(pageId, translate);
  let comments = byPage.get(pageId);
  if (!comments) {
    const created = new PageComments(pageId, translate);
    // Only a list already read is read again: the first read is the islands' (`ensureLoaded`).
    startVisiblePolling(() => created.refresh(REFRESH_AFTER_MS), { intervalMs: POLL_MS, minGapMs: REFRESH_AFTER_MS });
    byPage.set(pageId, created);
    comments = created;
  }
  return comments;
}
