/**
 * Comments through the public REST API: a page's threads, new roots and replies, resolve and
 * reopen by the thread's root, under the internal routes' rules: the pond's `commentPolicy`
 * (`editors` refuses a reader with 403), a page the caller cannot read is a 404 and so is any
 * comment on it, a read token never writes (403 `scope_required`), and a comment found by id
 * still passes its pond's opt-in and the token's restriction. Answers are checked against the
 * OpenAPI document.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page, Pond } from '../../models/index.ts';
import { seedGrant, seedPage } from '../../testing/accessFixtures.ts';
import { commentRow, seedComment, setCommentPolicy } from '../../testing/commentFixtures.ts';
import { MISSING_UUID } from '../../testing/pondTestSetup.ts';
import { assertApiError, useRestCast } from '../../testing/restApiCast.ts';

describe('public REST comments', () => {
  const cast = useRestCast();

  const commentsOf = (pond: Pond, page: Page) => `/ponds/${pond.slug}/pages/${page.slug}/comments`;

  test('a thread: a root, a reply, listed oldest first with the caller’s permissions', async () => {
    const pond = await cast.seedApiPond();
    const page = await seedPage(pond.id, 'Page');
    const reader = await cast.client(cast.reader, 'write');
    const editor = await cast.client(cast.editor, 'write');
    const empty = await reader.get(commentsOf(pond, page));
    assert.deepEqual(empty.body, { items: [], nextCursor: null, canComment: true });

    const root = await reader.post(commentsOf(pond, page), { body: '  Is **this** right?  ' });
    assert.equal(root.status, 201, root.text);
    assert.equal(root.body.body, 'Is **this** right?');
    assert.match(root.body.bodyHtml, /<strong>this<\/strong>/);
    assert.equal(root.body.pageId, page.id);
    assert.equal(root.body.parentId, null);
    assert.equal(root.body.anchor, null);
    assert.deepEqual(root.body.author, { id: cast.reader.user.id, displayName: root.body.author.displayName, deleted: false });
    assert.equal(root.body.canEdit, true);
    const reply = await editor.post(commentsOf(pond, page), { body: 'Yes.', parentId: root.body.id });
    assert.equal(reply.status, 201, reply.text);
    assert.equal(reply.body.parentId, root.body.id);

    const listed = await reader.get(commentsOf(pond, page));
    assert.equal(listed.status, 200, listed.text);
    assert.equal(listed.body.items.length, 1);
    const [thread] = listed.body.items;
    assert.equal(thread.id, root.body.id);
    assert.equal(thread.replyCount, 1);
    assert.deepEqual(thread.replies.map((item: { id: string; canEdit: boolean }) => [item.id, item.canEdit]), [[reply.body.id, false]], "the reader may not edit the editor's reply");
  });

  test('status and expand: resolved threads come collapsed unless expanded', async () => {
    const pond = await cast.seedApiPond();
    const page = await seedPage(pond.id, 'Page');
    const open = await seedComment(cast.instance, page, cast.owner.user.id);
    const resolved = await seedComment(cast.instance, page, cast.owner.user.id, { resolved: true });
    await seedComment(cast.instance, page, cast.editor.user.id, { parentId: resolved });
    const api = await cast.client(cast.reader, 'read');
    const ids = async (query: Record<string, string>) => (await api.get(commentsOf(pond, page), { query })).body.items.map((item: { id: string }) => item.id);
    assert.deepEqual(await ids({}), [open]);
    assert.deepEqual(await ids({ status: 'resolved' }), [resolved]);
    assert.deepEqual(await ids({ status: 'all' }), [open, resolved]);
    const collapsed = (await api.get(commentsOf(pond, page), { query: { status: 'resolved' } })).body.items[0];
    assert.deepEqual([collapsed.collapsed, collapsed.replies.length, collapsed.replyCount], [true, 0, 1]);
    const expanded = (await api.get(commentsOf(pond, page), { query: { status: 'resolved', expand: resolved } })).body.items[0];
    assert.deepEqual([expanded.collapsed, expanded.replies.length], [false, 1]);
    assertApiError(await api.get(commentsOf(pond, page), { query: { status: 'closed' } }), 400, 'validation_failed');
  });

  test('resolve and reopen a thread by its root; a reply answers 400 comment_not_root', async () => {
    const pond = await cast.seedApiPond();
    const page = await seedPage(pond.id, 'Page');
    const root = await seedComment(cast.instance, page, cast.owner.user.id);
    const reply = await seedComment(cast.instance, page, cast.owner.user.id, { parentId: root });
    const api = await cast.client(cast.reader, 'write');
    const resolved = await api.post(`/comments/${root}/resolve`);
    assert.equal(resolved.status, 200, resolved.text);
    assert.ok(resolved.body.resolvedAt);
    assert.equal(resolved.body.resolvedBy.id, cast.reader.user.id);
    const again = await api.post(`/comments/${root}/resolve`);
    assert.equal(again.body.resolvedAt, resolved.body.resolvedAt, 'resolving a resolved thread keeps when');
    const reopened = await api.post(`/comments/${root}/reopen`);
    assert.equal(reopened.status, 200);
    assert.deepEqual([reopened.body.resolvedAt, reopened.body.resolvedBy], [null, null]);
    assertApiError(await api.post(`/comments/${reply}/resolve`), 400, 'comment_not_root');
    assertApiError(await api.post(`/comments/${reply}/reopen`), 400, 'comment_not_root');
  });

  test('policy editors: a reader may read the threads but not comment, reply, resolve or reopen', async () => {
    const pond = await cast.seedApiPond();
    const page = await seedPage(pond.id, 'Page');
    await setCommentPolicy(cast.instance, pond.id, 'editors');
    const root = await seedComment(cast.instance, page, cast.editor.user.id);
    const reader = await cast.client(cast.reader, 'write');
    const listed = await reader.get(commentsOf(pond, page));
    assert.equal(listed.status, 200);
    assert.equal(listed.body.canComment, false);
    assertApiError(await reader.post(commentsOf(pond, page), { body: 'Me too' }), 403, 'forbidden');
    assertApiError(await reader.post(commentsOf(pond, page), { body: 'Me too', parentId: root }), 403, 'forbidden');
    assertApiError(await reader.post(`/comments/${root}/resolve`), 403, 'forbidden');
    assertApiError(await reader.post(`/comments/${root}/reopen`), 403, 'forbidden');
    assert.equal((await commentRow(cast.instance, root))?.resolved_at, null);
    const editor = await cast.client(cast.editor, 'write');
    assert.equal((await editor.post(commentsOf(pond, page), { body: 'Editors may' })).status, 201);
    assert.equal((await editor.post(`/comments/${root}/resolve`)).status, 200);
  });

  test('a page the caller cannot read is a 404, and so is every comment on it', async () => {
    const pond = await cast.seedApiPond();
    const page = await seedPage(pond.id, 'Hidden');
    await seedGrant(pond.id, { subject: { type: 'user', id: cast.reader.user.id }, role: 'reader', scope: { type: 'page', id: page.id }, effect: 'deny' });
    const root = await seedComment(cast.instance, page, cast.owner.user.id);
    const reader = await cast.client(cast.reader, 'write');
    assertApiError(await reader.get(commentsOf(pond, page)), 404, 'not_found');
    assertApiError(await reader.post(commentsOf(pond, page), { body: 'Hello' }), 404, 'not_found');
    for (const id of [root, MISSING_UUID, 'not-a-uuid']) {
      assertApiError(await reader.post(`/comments/${id}/resolve`), 404, 'not_found');
      assertApiError(await reader.post(`/comments/${id}/reopen`), 404, 'not_found');
    }
    const outsider = await cast.client(cast.outsider, 'write');
    assertApiError(await outsider.post(`/comments/${root}/resolve`), 404, 'not_found');
    const trashed = await seedPage(pond.id, 'Trashed', { trashed: true });
    const onTrashed = await seedComment(cast.instance, trashed, cast.owner.user.id);
    const owner = await cast.client(cast.owner, 'write');
    assertApiError(await owner.get(commentsOf(pond, trashed)), 404, 'not_found');
    assert.equal((await owner.post(`/comments/${onTrashed}/resolve`)).status, 404, 'the API works on live pages');
  });

  test('a comment found by id passes its pond’s opt-in and the token’s restriction (404 as for a missing comment)', async () => {
    const off = await cast.seedApiPond({ apiEnabled: false });
    const offRoot = await seedComment(cast.instance, await seedPage(off.id, 'Page'), cast.owner.user.id);
    const api = await cast.client(cast.owner, 'write');
    assertApiError(await api.post(`/comments/${offRoot}/resolve`), 404, 'not_found');
    const pond = await cast.seedApiPond();
    const root = await seedComment(cast.instance, await seedPage(pond.id, 'Page'), cast.owner.user.id);
    const restricted = await cast.client(cast.owner, 'write', { pondId: off.id });
    assertApiError(await restricted.post(`/comments/${root}/resolve`), 404, 'not_found');
    assert.equal((await commentRow(cast.instance, root))?.resolved_at, null);
  });

  test('a read token is refused every write with 403 scope_required', async () => {
    const pond = await cast.seedApiPond();
    const page = await seedPage(pond.id, 'Page');
    const root = await seedComment(cast.instance, page, cast.owner.user.id);
    const api = await cast.client(cast.owner, 'read');
    assertApiError(await api.post(commentsOf(pond, page), { body: 'No' }), 403, 'scope_required');
    assertApiError(await api.post(`/comments/${root}/resolve`), 403, 'scope_required');
    assertApiError(await api.post(`/comments/${root}/reopen`), 403, 'scope_required');
    assert.equal((await api.get(commentsOf(pond, page))).status, 200);
  });

  test('the body and reply rules are the internal ones', async () => {
    const pond = await cast.seedApiPond();
    const page = await seedPage(pond.id, 'Page');
    const root = await seedComment(cast.instance, page, cast.owner.user.id);
    const reply = await seedComment(cast.instance, page, cast.owner.user.id, { parentId: root });
    const other = await seedComment(cast.instance, await seedPage(pond.id, 'Other'), cast.owner.user.id);
    const api = await cast.client(cast.owner, 'write');
    assertApiError(await api.post(commentsOf(pond, page), { body: '   ' }), 400, 'comment_empty');
    assertApiError(await api.post(commentsOf(pond, page), { body: 'x'.repeat(10_001) }), 400, 'comment_too_long');
    assertApiError(await api.post(commentsOf(pond, page), { body: 'Deeper', parentId: reply }), 400, 'comment_reply_to_reply');
    assertApiError(await api.post(commentsOf(pond, page), { body: 'Elsewhere', parentId: other }), 404, 'not_found');
    assertApiError(await api.post(commentsOf(pond, page), { body: 'Anchored', anchor: { from: 'AA==', to: 'AA==', quote: 'x' } }), 400, 'validation_failed');
  });

  test('writes are audited as api.write', async () => {
    const pond = await cast.seedApiPond();
    const page = await seedPage(pond.id, 'Page');
    const api = await cast.client(cast.editor, 'write');
    const root = await api.post(commentsOf(pond, page), { body: 'Audited' });
    await api.post(`/comments/${root.body.id}/resolve`);
    await api.post(`/comments/${root.body.id}/reopen`);
    const writes = await cast.writesOf(api.tokenId);
    assert.deepEqual(
      writes.map((entry) => [entry.details.method, entry.details.route, entry.details.status]),
      [
        ['POST', '/ponds/:pondSlug/pages/:pageSlug/comments', 201],
        ['POST', '/comments/:id/resolve', 200],
        ['POST', '/comments/:id/reopen', 200],
      ],
    );
    assert.deepEqual(writes[1]!.details.params, { id: root.body.id });
  });
});
