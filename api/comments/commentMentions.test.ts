/**
 * Mentions in comments through HTTP (issue 35): a body's `[@Ann](dt-mention:<id>)` renders as
 * the mention chip and delivers one `mentioned` notification to each mentioned person who
 * may read the page, never to the author, never to a member a grant keeps out of the page or
 * to someone outside the pond, and an edit notifies only the people it newly mentions.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from '../models/index.ts';
import { seedGrant, seedPage, seedSharedPond } from '../testing/accessFixtures.ts';
import { completeSetup } from '../testing/fixtures.ts';
import { assertError, signInUsers, type SignedIn } from '../testing/pondTestSetup.ts';
import type { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

let instance: TestInstance;
let author: SignedIn, vera: SignedIn, tom: SignedIn, shut: SignedIn, outsider: SignedIn;
let page: Page;

before(async () => {
  instance = await startTestInstance();
  await completeSetup(instance);
  [author, vera, tom, shut, outsider] = (await signInUsers(instance, 5)) as [SignedIn, SignedIn, SignedIn, SignedIn, SignedIn];
  const pond = await seedSharedPond(author.user.id);
  for (const person of [vera, tom, shut]) await seedGrant(pond.id, { subject: { type: 'user', id: person.user.id }, role: 'editor' });
  page = await seedPage(pond.id, 'Inlet plan');
  // A member of the pond whom a page grant keeps out of this page.
  await seedGrant(pond.id, { subject: { type: 'user', id: shut.user.id }, role: 'reader', scope: { type: 'page', id: page.id }, effect: 'deny' });
});

after(() => instance.close());

const mention = (person: SignedIn) => `[@${person.credentials.displayName}](dt-mention:${person.user.id})`;

async function mentionsOf(client: TestClient): Promise<any[]> {
  const response = await client.get('/notifications');
  assert.equal(response.status, 200, response.text);
  return response.body.items.filter((item: { type: string; pageId: string }) => item.type === 'mentioned' && item.pageId === page.id);
}

async function readAll(client: TestClient): Promise<void> {
  assert.equal((await client.post('/notifications/read-all', {})).status, 204);
}

describe('mentions in comments', () => {
  let commentId: string;

  test('a new comment renders its mentions as chips and notifies the mentioned once, not the author, not who may not read the page', async () => {
    const body = `Could ${mention(vera)} check this? Also ${mention(author)}, ${mention(shut)}, ${mention(outsider)} and ${mention(vera)} again.`;
    const response = await author.client.post(`/pages/${page.id}/comments`, { body });
    assert.equal(response.status, 201, response.text);
    commentId = response.body.id;
    assert.equal(response.body.body, body, 'the Markdown is stored as written');
    assert.match(response.body.bodyHtml, new RegExp(`<span class="dt-mention" data-dt-mention="${vera.user.id}">@${vera.credentials.displayName}</span>`));
    assert.doesNotMatch(response.body.bodyHtml, /dt-mention:/, 'no link with the mention scheme is left');

    const [delivered, ...more] = await mentionsOf(vera.client);
    assert.equal(more.length, 0, 'mentioned twice in one body: one notification');
    assert.ok(delivered, 'the mentioned member is notified');
    assert.equal(delivered.readAt, null);
    assert.equal(delivered.payload.commentId, commentId);
    assert.deepEqual(delivered.payload.actors.map((actor: { id: string }) => actor.id), [author.user.id]);
    assert.match(delivered.payload.commentExcerpt, new RegExp(`^Could @${vera.credentials.displayName} check this\\?`));

    assert.equal((await mentionsOf(author.client)).length, 0, 'the author mentioning themself is not notified');
    assert.equal((await mentionsOf(shut.client)).length, 0, 'a member who may not read the page is not notified');
    assert.equal((await mentionsOf(outsider.client)).length, 0, 'someone outside the pond is not notified');
    assert.equal((await mentionsOf(tom.client)).length, 0, 'someone not mentioned is not notified');
  });

  test('an edit notifies only those it newly mentions', async () => {
    await readAll(vera.client);
    const edited = await author.client.patch(`/comments/${commentId}`, { body: `Could ${mention(vera)} and ${mention(tom)} check this?` });
    assert.equal(edited.status, 200, edited.text);
    const veraNow = await mentionsOf(vera.client);
    assert.equal(veraNow.length, 1, 'still only the first notification');
    assert.notEqual(veraNow[0].readAt, null, 'an edit that keeps the mention adds nothing unread');
    const [toTom, ...more] = await mentionsOf(tom.client);
    assert.ok(toTom, 'the newly mentioned member is notified');
    assert.equal(more.length, 0);
    assert.equal(toTom.payload.commentId, commentId);

    await readAll(tom.client);
    const again = await author.client.patch(`/comments/${commentId}`, { body: `Could ${mention(vera)} and ${mention(tom)} check this, please?` });
    assert.equal(again.status, 200, again.text);
    assert.deepEqual((await mentionsOf(tom.client)).map((item) => item.readAt === null), [false], 'a second edit keeping both mentions notifies nobody');
    assert.deepEqual((await mentionsOf(vera.client)).map((item) => item.readAt === null), [false]);
  });

  test('a reply mentions as a thread does; a refused comment notifies nobody', async () => {
    await readAll(vera.client);
    const reply = await tom.client.post(`/pages/${page.id}/comments`, { body: `Done, ${mention(vera)}.`, parentId: commentId });
    assert.equal(reply.status, 201, reply.text);
    const unread = (await mentionsOf(vera.client)).filter((item) => item.readAt === null);
    assert.equal(unread.length, 1);
    assert.deepEqual(unread[0].payload.actors.map((actor: { id: string }) => actor.id), [tom.user.id]);

    await readAll(vera.client);
    const refused = await tom.client.post(`/pages/${page.id}/comments`, { body: `${mention(vera)} ${'x'.repeat(10_001)}` });
    assertError(refused, 400, 'comment_too_long');
    assert.equal((await mentionsOf(vera.client)).filter((item) => item.readAt === null).length, 0);
    const foreign = await outsider.client.post(`/pages/${page.id}/comments`, { body: mention(vera) });
    assertError(foreign, 404, 'not_found');
    assert.equal((await mentionsOf(vera.client)).filter((item) => item.readAt === null).length, 0);
  });
});
