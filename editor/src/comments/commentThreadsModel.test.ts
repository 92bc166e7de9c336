import assert from 'node:assert/strict';
import { test } from 'node:test';
import { anchoredThreads, filterThreads, openThreadCount, shownReplies } from './commentThreadsModel.ts';
import type { CommentThread, CommentView } from './commentViews.ts';

const comment = (id: string, extra: Partial<CommentView> = {}): CommentView => ({
  id,
  pageId: 'page',
  parentId: null,
  author: { id: 'u', displayName: 'Ada', deleted: false },
  body: id,
  bodyHtml: `<p>${id}</p>`,
  anchor: null,
  resolvedAt: null,
  resolvedBy: null,
  editedAt: null,
  createdAt: '2026-01-01T00:00:00Z',
  canEdit: true,
  canDelete: true,
  ...extra,
});
const thread = (id: string, extra: Partial<CommentThread> = {}): CommentThread => ({ ...comment(id), replies: [], replyCount: 0, collapsed: false, ...extra });
const anchor = { from: 'AA==', to: 'AQ==', quote: 'text' };

const threads = [
  thread('open-anchored', { anchor, replies: [comment('r1', { parentId: 'open-anchored' })], replyCount: 1 }),
  thread('resolved-anchored', { anchor, resolvedAt: '2026-01-02T00:00:00Z', replyCount: 2, collapsed: true }),
  thread('open-page'),
];

test('the filter keeps order; the count counts open threads only', () => {
  assert.deepEqual(filterThreads(threads, 'open').map((entry) => entry.id), ['open-anchored', 'open-page']);
  assert.deepEqual(filterThreads(threads, 'resolved').map((entry) => entry.id), ['resolved-anchored']);
  assert.deepEqual(filterThreads(threads, 'all').map((entry) => entry.id), ['open-anchored', 'resolved-anchored', 'open-page']);
  assert.equal(openThreadCount(threads), 2);
  assert.equal(openThreadCount([]), 0);
});

test('anchored threads: page-level ones are left out, resolved ones marked', () => {
  assert.deepEqual(anchoredThreads(threads), [
    { id: 'open-anchored', anchor, resolved: false },
    { id: 'resolved-anchored', anchor, resolved: true },
  ]);
});

test('replies: an open thread’s own, a collapsed one’s only once loaded', () => {
  assert.deepEqual(shownReplies(threads[0]!, {})?.map((reply) => reply.id), ['r1']);
  assert.equal(shownReplies(threads[1]!, {}), null);
  const loaded = [comment('r2', { parentId: 'resolved-anchored' })];
  assert.equal(shownReplies(threads[1]!, { 'resolved-anchored': loaded }), loaded);
});
