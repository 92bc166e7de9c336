/**
 * The comment rules through HTTP (spec: Comment, Comment rules, Comment thread states): the
 * view, Markdown bodies with markup escaped and their limits, one-level threads, anchors,
 * resolve / reopen with resolved threads collapsed, edit and delete by the author, the pond
 * admin's cascading delete, deleted authors, and what a new comment sets off (notifications
 * of watchers, the author's auto-watch). Who may act at all: commentRoutes.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { QueryTypes } from 'sequelize';
import { renderCommentHtml } from '../../content-pipeline/index.ts';
import { COMMENT_MAX_LENGTH } from '../comments/commentContent.ts';
import type { Page } from '../models/index.ts';
import { seedGrant, seedPage, seedSharedPond } from '../testing/accessFixtures.ts';
import { commentRow, seedComment } from '../testing/commentFixtures.ts';
import { completeSetup } from '../testing/fixtures.ts';
import { assertError, assertFieldError, MISSING_UUID, signInUsers, type SignedIn } from '../testing/pondTestSetup.ts';
import type { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

const COMMENT_VIEW_KEYS = ['anchor', 'author', 'body', 'bodyHtml', 'canDelete', 'canEdit', 'createdAt', 'editedAt', 'id', 'pageId', 'parentId', 'resolvedAt', 'resolvedBy'];
const THREAD_VIEW_KEYS = [...COMMENT_VIEW_KEYS, 'collapsed', 'replies', 'replyCount'].sort();
const ANCHOR = { from: 'AQLJ9qmBDAA=', to: 'AQLJ9qmBDBM=', quote: 'the north inlet' };

let instance: TestInstance;
let siteAdmin: TestClient;
let owner: SignedIn, editor: SignedIn, reader: SignedIn, leaver: SignedIn;
let page: Page;
let otherPage: Page;

before(async () => {
  instance = await startTestInstance();
  siteAdmin = await completeSetup(instance);
  [owner, editor, reader, leaver] = (await signInUsers(instance, 4)) as [SignedIn, SignedIn, SignedIn, SignedIn];
  const pond = await seedSharedPond(owner.user.id);
  for (const [person, role] of [[editor, 'editor'], [reader, 'reader'], [leaver, 'reader']] as const) {
    await seedGrant(pond.id, { subject: { type: 'user', id: person.user.id }, role });
  }
  page = await seedPage(pond.id, 'Discussed');
  otherPage = await seedPage(pond.id, 'Elsewhere');
});

after(() => instance.close());

const post = (client: TestClient, body: unknown, target: Page = page) => client.post(`/pages/${target.id}/comments`, body);
const list = (client: TestClient, query = '') => client.get(`/pages/${page.id}/comments${query ? `?${query}` : ''}`);

async function created(client: TestClient, body: Record<string, unknown>, target: Page = page): Promise<any> {
  const response = await post(client, body, target);
  assert.equal(response.status, 201, response.text);
  return response.body;
}

function threadOf(response: { body: any }, id: string): any {
  return response.body.items.find((item: { id: string }) => item.id === id);
}

async function sql<T extends object>(query: string, replacements: Record<string, unknown>): Promise<T[]> {
  return instance.services.sequelize.query<T>(query, { replacements, type: QueryTypes.SELECT });
}

describe('views and bodies', () => {
  test('POST answers 201 with the comment view; the list wraps it as a thread with canComment and canResolve', async () => {
    const startedAt = Date.now();
    const comment = await created(reader.client, { body: '  Is the **inlet** clear?\n', anchor: ANCHOR });
    assert.deepEqual(Object.keys(comment).sort(), COMMENT_VIEW_KEYS);
    assert.equal(comment.pageId, page.id);
    assert.equal(comment.parentId, null);
    assert.deepEqual(comment.author, { id: reader.user.id, displayName: reader.credentials.displayName, deleted: false });
    assert.equal(comment.body, 'Is the **inlet** clear?');
    assert.equal(comment.bodyHtml, '<p>Is the <strong>inlet</strong> clear?</p>');
    assert.deepEqual(comment.anchor, ANCHOR);
    assert.deepEqual([comment.resolvedAt, comment.resolvedBy, comment.editedAt], [null, null, null]);
    assert.ok(Date.parse(comment.createdAt) >= startedAt - 1000, comment.createdAt);
    assert.deepEqual([comment.canEdit, comment.canDelete], [true, true]);

    const listed = await list(reader.client);
    assert.deepEqual(Object.keys(listed.body).sort(), ['canComment', 'canResolve', 'items']);
    const thread = threadOf(listed, comment.id);
    assert.deepEqual(Object.keys(thread).sort(), THREAD_VIEW_KEYS);
    assert.deepEqual({ ...thread, replies: undefined, replyCount: undefined, collapsed: undefined }, { ...comment, replies: undefined, replyCount: undefined, collapsed: undefined });
    assert.deepEqual([thread.replies, thread.replyCount, thread.collapsed], [[], 0, false]);
    // Someone else's comment: readable, not theirs to change.
    const seenByEditor = threadOf(await list(editor.client), comment.id);
    assert.deepEqual([seenByEditor.canEdit, seenByEditor.canDelete], [false, false]);
  });

  test('markup in a body comes back as escaped text; unsafe links lose their target', async () => {
    const typed = 'Hi <b onclick="x">there</b> <script>alert(1)</script> **bold** [x](javascript:alert(1))';
    const comment = await created(reader.client, { body: typed });
    assert.equal(comment.body, typed);
    assert.equal(comment.bodyHtml, renderCommentHtml(typed));
    assert.ok(comment.bodyHtml.includes('&#x3C;b onclick="x">there&#x3C;/b> &#x3C;script>alert(1)&#x3C;/script>'), comment.bodyHtml);
    assert.ok(comment.bodyHtml.includes('<strong>bold</strong>'));
    assert.doesNotMatch(comment.bodyHtml, /<script|<b |javascript:/);
  });

  test('an empty or blank body is refused with comment_empty, a body over the limit with comment_too_long; the limit itself is fine', async () => {
    for (const body of ['', '   \n\t ']) assertError(await post(reader.client, { body }), 400, 'comment_empty');
    const tooLong = await post(reader.client, { body: 'a'.repeat(COMMENT_MAX_LENGTH + 1) });
    assertError(tooLong, 400, 'comment_too_long');
    assert.equal(tooLong.body.error.details.maxLength, COMMENT_MAX_LENGTH);
    assert.equal((await post(reader.client, { body: `  ${'a'.repeat(COMMENT_MAX_LENGTH)}  ` })).status, 201, 'surrounding blanks do not count');
    assertFieldError(await post(reader.client, {}), 'body');
    assertFieldError(await post(reader.client, { body: 42 }), 'body');
    const German = await reader.client.post(`/pages/${page.id}/comments`, { body: ' ' }, { headers: { 'accept-language': 'de' } });
    assert.equal(German.body.error.message, 'Bitte schreibe zuerst etwas.');
  });

  test('anchors: shape and size are checked, null is none', async () => {
    for (const [anchor, path] of [
      [{ ...ANCHOR, from: 'not base64!' }, 'anchor.from'],
      [{ ...ANCHOR, to: 'A'.repeat(257) }, 'anchor.to'],
      [{ ...ANCHOR, quote: 'q'.repeat(501) }, 'anchor.quote'],
      [{ from: ANCHOR.from, to: ANCHOR.to }, 'anchor.quote'],
      [{ ...ANCHOR, extra: 1 }, 'anchor'],
    ] as const) {
      assertFieldError(await post(reader.client, { body: 'x', anchor }), path);
    }
    assert.equal((await created(reader.client, { body: 'x', anchor: null })).anchor, null);
    assert.deepEqual((await created(reader.client, { body: 'x', anchor: { ...ANCHOR, quote: 'q'.repeat(500) } })).anchor.quote.length, 500);
  });
});

describe('threads', () => {
  test('replies attach to a root of the same page, oldest first, without an anchor; a reply to a reply is refused', async () => {
    const root = await created(editor.client, { body: 'Root', anchor: ANCHOR });
    const first = await created(reader.client, { body: 'First reply', parentId: root.id });
    const second = await created(owner.client, { body: 'Second reply', parentId: root.id.toUpperCase() });
    assert.deepEqual([first.parentId, second.parentId], [root.id, root.id]);
    assertError(await post(reader.client, { body: 'Nested', parentId: first.id }), 400, 'comment_reply_to_reply');
    assertError(await post(reader.client, { body: 'Anchored reply', parentId: root.id, anchor: ANCHOR }), 400, 'comment_anchor_on_reply');
    const elsewhere = await seedComment(instance, otherPage, editor.user.id);
    assertError(await post(reader.client, { body: 'Wrong page', parentId: elsewhere }), 404, 'not_found');
    assertError(await post(reader.client, { body: 'Missing', parentId: MISSING_UUID }), 404, 'not_found');
    assertFieldError(await post(reader.client, { body: 'Malformed', parentId: 'nope' }), 'parentId');

    const thread = threadOf(await list(reader.client), root.id);
    assert.deepEqual(thread.replies.map((reply: { id: string }) => reply.id), [first.id, second.id]);
    assert.equal(thread.replyCount, 2);
    assert.deepEqual(thread.replies.map((reply: { anchor: unknown }) => reply.anchor), [null, null]);
  });

  test('resolve and reopen act on roots, by anyone who may comment; a resolved thread arrives collapsed unless expanded', async () => {
    const root = await created(editor.client, { body: 'Settle this' });
    const reply = await created(owner.client, { body: 'Settled', parentId: root.id });
    assertError(await reader.client.post(`/comments/${reply.id}/resolve`), 400, 'comment_not_root');
    assertError(await reader.client.post(`/comments/${reply.id}/reopen`), 400, 'comment_not_root');

    const resolved = await reader.client.post(`/comments/${root.id}/resolve`);
    assert.equal(resolved.status, 200, resolved.text);
    assert.deepEqual(Object.keys(resolved.body).sort(), COMMENT_VIEW_KEYS);
    assert.deepEqual(resolved.body.resolvedBy, { id: reader.user.id, displayName: reader.credentials.displayName });
    assert.ok(resolved.body.resolvedAt);
    // Resolving again changes nothing: who resolved it and when stay.
    const again = await editor.client.post(`/comments/${root.id}/resolve`);
    assert.deepEqual([again.body.resolvedAt, again.body.resolvedBy], [resolved.body.resolvedAt, resolved.body.resolvedBy]);

    assert.equal(threadOf(await list(reader.client), root.id), undefined, 'open is the default filter');
    const collapsed = threadOf(await list(reader.client, 'status=resolved'), root.id);
    assert.deepEqual([collapsed.collapsed, collapsed.replies, collapsed.replyCount], [true, [], 1]);
    const expanded = threadOf(await list(reader.client, `status=resolved&expand=${root.id}`), root.id);
    assert.deepEqual([expanded.collapsed, expanded.replies.map((entry: { id: string }) => entry.id), expanded.replyCount], [false, [reply.id], 1]);
    const all = await list(reader.client, 'status=all');
    assert.ok(threadOf(all, root.id)?.collapsed);
    assert.ok(all.body.items.some((item: { resolvedAt: string | null }) => item.resolvedAt === null), 'open threads are in "all" too');
    assert.ok((await list(reader.client, 'status=resolved')).body.items.every((item: { resolvedAt: string | null }) => item.resolvedAt !== null));
    assertFieldError(await list(reader.client, 'status=closed'), 'query.status');

    const reopened = await owner.client.post(`/comments/${root.id}/reopen`);
    assert.deepEqual([reopened.status, reopened.body.resolvedAt, reopened.body.resolvedBy], [200, null, null]);
    const open = threadOf(await list(reader.client), root.id);
    assert.deepEqual([open.collapsed, open.replies.length], [false, 1]);
  });
});

describe('edit and delete', () => {
  test('edit: the author only, re-rendered and marked edited', async () => {
    const comment = await created(reader.client, { body: 'First draft' });
    for (const other of [editor, owner]) assertError(await other.client.patch(`/comments/${comment.id}`, { body: 'Hijacked' }), 403, 'comment_not_author');
    assertError(await reader.client.patch(`/comments/${comment.id}`, { body: '  ' }), 400, 'comment_empty');
    assert.equal((await commentRow(instance, comment.id))!.body, 'First draft');
    const edited = await reader.client.patch(`/comments/${comment.id}`, { body: ' Second *draft* ' });
    assert.equal(edited.status, 200, edited.text);
    assert.deepEqual([edited.body.body, edited.body.bodyHtml], ['Second *draft*', '<p>Second <em>draft</em></p>']);
    assert.ok(edited.body.editedAt && Date.parse(edited.body.editedAt) >= Date.parse(comment.createdAt));
  });

  test('delete: the author deletes a reply or a root without replies; a root with replies only a pond admin or Site Admin, with its replies', async () => {
    const lone = await created(reader.client, { body: 'Alone' });
    assertError(await owner.client.request('DELETE', `/comments/${lone.id}`), 403, 'comment_not_author');
    assert.equal((await reader.client.request('DELETE', `/comments/${lone.id}`)).status, 204);
    assert.equal(await commentRow(instance, lone.id), undefined);
    assertError(await reader.client.request('DELETE', `/comments/${lone.id}`), 404, 'not_found');

    for (const admin of [owner.client, siteAdmin]) {
      const root = await created(reader.client, { body: 'Started a thread' });
      const reply = await created(editor.client, { body: 'Replied', parentId: root.id });
      const asAuthor = threadOf(await list(reader.client), root.id);
      assert.deepEqual([asAuthor.canEdit, asAuthor.canDelete], [true, false], 'the author may no longer delete it');
      assert.equal(threadOf(await list(admin), root.id).canDelete, true, 'the admin may');
      assertError(await reader.client.request('DELETE', `/comments/${root.id}`), 403, 'comment_has_replies');
      assertError(await editor.client.request('DELETE', `/comments/${root.id}`), 403, 'comment_not_author');
      assert.ok(await commentRow(instance, root.id));
      assert.equal((await admin.request('DELETE', `/comments/${root.id}`)).status, 204);
      assert.equal(await commentRow(instance, root.id), undefined);
      assert.equal(await commentRow(instance, reply.id), undefined, 'the reply went with its root');
    }

    const root = await created(reader.client, { body: 'Thread' });
    const reply = await created(editor.client, { body: 'Reply', parentId: root.id });
    assert.equal((await editor.client.request('DELETE', `/comments/${reply.id}`)).status, 204, 'a reply is its author\'s to delete');
    assert.equal((await reader.client.request('DELETE', `/comments/${root.id}`)).status, 204, 'with no replies left, the root is its author\'s again');
  });

  test('a deleted account is named "Deleted user" in the caller\'s language', async () => {
    const comment = await created(leaver.client, { body: 'Leaving soon' });
    await instance.services.sequelize.query(`UPDATE users SET status = 'deleted', display_name = 'deleted-placeholder' WHERE id = :id`, { replacements: { id: leaver.user.id } });
    const english = threadOf(await list(reader.client), comment.id);
    assert.deepEqual(english.author, { id: leaver.user.id, displayName: 'Deleted user', deleted: true });
    const german = threadOf(await reader.client.get(`/pages/${page.id}/comments`, { headers: { 'accept-language': 'de' } }), comment.id);
    assert.equal(german.author.displayName, 'Gelöschter Benutzer');
  });

  test('a trashed page takes no comments: page_trashed for those who may see it, 404 for the others', async () => {
    const trashed = await seedPage(page.pondId, 'Binned', { trashed: true });
    assertError(await post(editor.client, { body: 'Late' }, trashed), 404, 'page_trashed');
    assertError(await post(reader.client, { body: 'Late' }, trashed), 404, 'not_found');
  });
});

describe('what a new comment sets off', () => {
  test('watchers of the page and the pond are notified, never the author; the author watches the page unless their preference is off', async () => {
    const quiet = await seedPage(page.pondId, 'Watched');
    await sql(`INSERT INTO watches (user_id, target_type, pond_id, page_id) VALUES (:editor, 'page', :pondId, :pageId), (:owner, 'pond', :pondId, NULL)`, {
      editor: editor.user.id,
      owner: owner.user.id,
      pondId: quiet.pondId,
      pageId: quiet.id,
    });
    const response = await post(reader.client, { body: 'Look at **this** <b>now</b>' }, quiet);
    assert.equal(response.status, 201, response.text);
    const rows = await sql<{ user_id: string; type: string; payload: any }>(`SELECT user_id, type, payload FROM notifications WHERE page_id = :pageId ORDER BY user_id`, { pageId: quiet.id });
    assert.deepEqual(rows.map((row) => row.user_id).sort(), [editor.user.id, owner.user.id].sort());
    for (const row of rows) {
      assert.equal(row.type, 'comment');
      assert.equal(row.payload.commentId, response.body.id);
      assert.equal(row.payload.commentExcerpt, 'Look at this <b>now</b>');
      assert.deepEqual(row.payload.actors.map((actor: { id: string }) => actor.id), [reader.user.id]);
    }
    const watching = async (userId: string) => (await sql(`SELECT 1 FROM watches WHERE user_id = :userId AND page_id = :pageId`, { userId, pageId: quiet.id })).length;
    assert.equal(await watching(reader.user.id), 1, 'the author now watches the page');

    await sql(`UPDATE users SET auto_watch_on_comment = false WHERE id = :id`, { id: owner.user.id });
    await created(owner.client, { body: 'Noted', parentId: response.body.id }, quiet);
    assert.equal(await watching(owner.user.id), 0, 'preference off: no page watch');
    const again = await sql<{ user_id: string; payload: any }>(`SELECT user_id, payload FROM notifications WHERE page_id = :pageId AND user_id = :userId`, { pageId: quiet.id, userId: reader.user.id });
    assert.equal(again.length, 1, 'the first author, now a watcher, hears of the reply');
  });
});
