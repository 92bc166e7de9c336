/**
 * Comments in public: `GET /api/v1/public/:pondSlug/:pageSlug/comments` under the public
 * page's 404 rules, and the page's generated document, which shows the open threads once a
 * comment write has queued it and the queue has been drained.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { QueryTypes } from 'sequelize';
import { runQueuedRegeneration } from '../publicPages/publicDocumentJob.ts';
import { publicFixture, type PublicFixture } from '../publicPages/publicTestFixture.ts';
import { Page } from '../models/index.ts';
import { seedPage } from '../testing/accessFixtures.ts';
import { seedComment } from '../testing/commentFixtures.ts';
import { completeSetup } from '../testing/fixtures.ts';
import { waitFor } from '../testing/polling.ts';
import { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

let instance: TestInstance;
let admin: TestClient;
let adminId: string;
let fixture: PublicFixture;
let anonymous: TestClient;

before(async () => {
  instance = await startTestInstance();
  admin = await completeSetup(instance);
  adminId = (await admin.get('/users/me')).body.id;
  fixture = await publicFixture(instance, admin);
  anonymous = new TestClient(instance.baseUrl);
});

after(() => instance.close());

const publicComments = (client: TestClient, pondSlug: string, pageSlug: string, query = '') => client.get(`/public/${pondSlug}/${pageSlug}/comments${query}`);

async function pageOf(id: string): Promise<Page> {
  return (await Page.findByPk(id))!;
}

describe('GET /public/:pondSlug/:pageSlug/comments', () => {
  test('the open threads of a public page, read-only: display names only, no permission flags; the filter as for members', async () => {
    const install = await pageOf(fixture.pages.install);
    assert.deepEqual((await publicComments(anonymous, fixture.pond.slug, 'install')).body, { items: [] });
    const root = await seedComment(instance, install, adminId, { body: 'How long does it **take**?', anchor: { from: 'AQI=', to: 'AQM=', quote: 'npm install' } });
    const reply = await seedComment(instance, install, adminId, { parentId: root, body: 'A minute <i>or two</i>.' });
    const settled = await seedComment(instance, install, adminId, { resolved: true, body: 'Settled' });
    await seedComment(instance, install, adminId, { parentId: settled, body: 'Indeed' });

    const response = await publicComments(anonymous, fixture.pond.slug.toUpperCase(), 'INSTALL');
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(
      response.body.items.map((item: { id: string }) => item.id),
      [root],
    );
    const [thread] = response.body.items;
    assert.deepEqual(Object.keys(thread).sort(), ['anchor', 'author', 'body', 'bodyHtml', 'collapsed', 'createdAt', 'editedAt', 'id', 'pageId', 'parentId', 'replies', 'replyCount', 'resolvedAt', 'resolvedBy']);
    assert.deepEqual(thread.author, { displayName: 'Ada Admin' });
    assert.equal(thread.bodyHtml, '<p>How long does it <strong>take</strong>?</p>');
    assert.equal(thread.anchor.quote, 'npm install');
    assert.deepEqual([thread.replyCount, thread.collapsed], [1, false]);
    assert.deepEqual(thread.replies.map((entry: { id: string; bodyHtml: string }) => [entry.id, entry.bodyHtml]), [[reply, '<p>A minute &#x3C;i>or two&#x3C;/i>.</p>']]);
    assert.deepEqual(Object.keys(thread.replies[0]).sort(), ['anchor', 'author', 'body', 'bodyHtml', 'createdAt', 'editedAt', 'id', 'pageId', 'parentId', 'resolvedAt', 'resolvedBy']);

    const all = (await publicComments(anonymous, fixture.pond.slug, 'install', '?status=all')).body.items;
    assert.deepEqual(all.map((item: { id: string; collapsed: boolean; replyCount: number }) => [item.id, item.collapsed, item.replyCount]), [[root, false, 1], [settled, true, 1]]);
    assert.deepEqual(all[1].resolvedBy, { displayName: 'Ada Admin' });
    // A signed-in member asks as the public too.
    assert.deepEqual((await publicComments(admin, fixture.pond.slug, 'install')).body, response.body);
  });

  test('404 wherever the public page is a 404: a page denied to the public, a private pond, unknown slugs, a trashed page; for members too', async () => {
    const secret = await pageOf(fixture.pages.secret);
    await seedComment(instance, secret, adminId, { body: 'Hush' });
    const trashed = await seedPage(fixture.pond.id, 'Old', { trashed: true });
    await seedComment(instance, trashed, adminId, { body: 'Binned' });
    for (const client of [anonymous, admin]) {
      for (const [pond, page] of [[fixture.pond.slug, 'secret'], [fixture.privatePond.slug, 'notes'], [fixture.pond.slug, 'missing'], ['no-such-pond', 'guide'], [fixture.pond.slug, trashed.slug]]) {
        const response = await publicComments(client, pond!, page!);
        assert.equal(response.status, 404, `${pond}/${page}: ${response.text}`);
        assert.equal(response.body.error.code, 'not_found');
      }
    }
  });
});

describe('the public document', () => {
  const documentPath = () => `/${fixture.pond.slug}/guide`;

  async function served(): Promise<string> {
    const response = await fetch(new URL(documentPath(), instance.baseUrl));
    assert.equal(response.status, 200);
    return response.text();
  }

  async function regenerate(): Promise<void> {
    await runQueuedRegeneration({ sequelize: instance.services.sequelize, fallbackBaseUrl: instance.baseUrl }, instance.services.logger);
  }

  async function queuedFor(pageId: string): Promise<number> {
    const rows = await instance.services.sequelize.query(`SELECT 1 FROM public_document_queue WHERE page_id = :pageId`, { replacements: { pageId }, type: QueryTypes.SELECT });
    return rows.length;
  }

  test('shows the open threads after a comment write regenerates it, and nothing once they are resolved', async () => {
    const before = await served();
    assert.doesNotMatch(before, /doc-comments|class="comment/);
    await regenerate();

    const root = await admin.post(`/pages/${fixture.pages.guide}/comments`, { body: 'Please add a **diagram** <img src=x onerror=alert(1)>', anchor: { from: 'AQI=', to: 'AQM=', quote: 'Welcome to the guide.' } });
    assert.equal(root.status, 201, root.text);
    assert.equal(await queuedFor(fixture.pages.guide), 1, 'the write queued the page in its transaction');
    const reply = await admin.post(`/pages/${fixture.pages.guide}/comments`, { body: 'Seconded.', parentId: root.body.id });
    assert.equal(reply.status, 201, reply.text);
    await regenerate();
    await waitFor(async () => (await served()).includes('doc-comments'), 5_000, 'the regenerated document to be served');
    const html = await served();
    assert.doesNotMatch(html, /<script|<img src=x/i);
    assert.ok(html.includes('<div class="comment-body"><p>Please add a <strong>diagram</strong> &#x3C;img src=x onerror=alert(1)></p></div>'), 'the body as rendered and sanitized');
    assert.ok(html.includes('<span class="visually-hidden">About the passage: </span>Welcome to the guide.</blockquote>'));
    assert.equal(html.match(/<span class="comment-author">Ada Admin<\/span>/g)?.length, 2);
    assert.match(html, /<ol class="comment-replies" aria-label="Replies"><li><article class="comment">.*<p>Seconded.<\/p>/s);

    assert.equal((await admin.post(`/comments/${root.body.id}/resolve`)).status, 200);
    assert.equal(await queuedFor(fixture.pages.guide), 1);
    await regenerate();
    await waitFor(async () => !(await served()).includes('doc-comments'), 5_000, 'the document without its resolved thread');
    assert.equal(await served(), before, 'the same bytes as before any comment');
  });
});
