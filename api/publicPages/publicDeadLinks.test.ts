/**
 * Visitors never meet a dead link (issue 35): in a public document a wikilink to a page the
 * public may read is a link; one to a private page or to no page (a phantom) is its text
 * without an href, also inside a transcluded body. The document follows its targets: a
 * target turning private takes the link away at once (the document is dropped and generated
 * again without it), one turning public, or a phantom's page being created, brings it back
 * after the worker's regeneration. An embedded page without text says so, in the instance's language.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { completeSetup } from '../testing/fixtures.ts';
import { waitFor } from '../testing/polling.ts';
import type { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';
import { runQueuedRegeneration } from './publicDocumentJob.ts';
import { createPage, grantPublic } from './publicTestFixture.ts';

let instance: TestInstance;
let admin: TestClient;
let pond: { id: string; slug: string };
const ids: Record<string, string> = {};

async function content(slug: string): Promise<{ status: number; html: string }> {
  const response = await fetch(new URL(`/api/v1/public/${pond.slug}/${slug}/content`, instance.baseUrl));
  return { status: response.status, html: response.status === 200 ? ((await response.json()) as { html: string }).html : '' };
}

async function documentHtml(slug: string): Promise<string> {
  const response = await fetch(new URL(`/${pond.slug}/${slug}`, instance.baseUrl));
  assert.equal(response.status, 200);
  return response.text();
}

async function regenerate(): Promise<void> {
  await runQueuedRegeneration({ sequelize: instance.services.sequelize, fallbackBaseUrl: instance.baseUrl }, instance.services.logger);
}

/** A regeneration reaches the served cache through Postgres's NOTIFY, a moment after it returns. */
async function eventually(slug: string, expected: (html: string) => boolean, what: string): Promise<void> {
  await waitFor(async () => expected((await content(slug)).html), 5_000, what);
}

const liveLink = (slug: string) => new RegExp(`<a href="[^"]*" data-slug="${slug}" class="dt-wikilink">`);
const textOnly = (slug: string, text: string) => `<span data-slug="${slug}" class="dt-wikilink-unavailable">${text}</span>`;

before(async () => {
  instance = await startTestInstance();
  admin = await completeSetup(instance);
  pond = (await admin.post('/ponds', { name: 'Links', slug: 'links' })).body;
  await grantPublic(admin, pond.id, { type: 'pond' });
  ids.open = await createPage(admin, pond.id, { title: 'Open', slug: 'open', markdown: 'Open text.' });
  ids.hidden = await createPage(admin, pond.id, { title: 'Hidden', slug: 'hidden', markdown: 'Hidden text.' });
  ids.hiddenDeny = await grantPublic(admin, pond.id, { type: 'page', id: ids.hidden }, 'deny');
  ids.quoted = await createPage(admin, pond.id, { title: 'Quoted', slug: 'quoted', markdown: 'Quoted links to [[hidden|the hidden one]] and [[open]].' });
  ids.blank = await createPage(admin, pond.id, { title: 'Blank', slug: 'blank' });
  ids.host = await createPage(admin, pond.id, {
    title: 'Host',
    slug: 'host',
    markdown: 'See [[open|the open page]], [[hidden|the hidden page]] and [[giessplan|Gießplan]].\n\n![[quoted]]\n\n![[blank]]\n',
  });
  await regenerate();
});

after(async () => {
  await instance.close();
});

describe('wikilinks in public documents', () => {
  test('a public target is a link; a private one and a phantom are their text without an href, in transcluded bodies too', async () => {
    const { status, html } = await content('host');
    assert.equal(status, 200);
    assert.match(html, liveLink('open'));
    assert.ok(html.includes(textOnly('hidden', 'the hidden page')), html);
    assert.ok(html.includes(textOnly('giessplan', 'Gießplan')), html);
    assert.ok(html.includes(textOnly('hidden', 'the hidden one')), 'the transcluded page’s link to the private page');
    assert.equal(html.match(new RegExp(liveLink('open').source, 'g'))?.length, 2, 'both links to the public page stay links');
    // The HTML document has the same body: no href to the private page or the phantom anywhere.
    const page = await documentHtml('host');
    assert.ok(!/href="[^"]*(hidden|giessplan)"/.test(page), 'no href leads to a 404');
  });

  test('an embedded page without text says so in the instance language', async () => {
    const { html } = await content('host');
    assert.ok(html.includes('<div class="dt-transclusion" data-slug="blank" data-dt-title="Blank"><p class="dt-transclusion-empty">This embedded page has no text yet.</p></div>'), html);
  });

  test('a target turning private loses its link at once; turning public again brings it back after regeneration', async () => {
    const deny = await grantPublic(admin, pond.id, { type: 'page', id: ids.open! }, 'deny');
    // Dropped in the grant's transaction: the next visitor gets a document generated under the new rules.
    let html = (await content('host')).html;
    assert.ok(html.includes(textOnly('open', 'the open page')), html);
    assert.ok(!liveLink('open').test(html));
    assert.equal((await admin.request('DELETE', `/ponds/${pond.id}/grants/${deny}`)).status, 204);
    await regenerate();
    await eventually('host', (text) => liveLink('open').test(text) && !text.includes(textOnly('open', 'the open page')), 'the link to the public page again');

    assert.equal((await admin.request('DELETE', `/ponds/${pond.id}/grants/${ids.hiddenDeny}`)).status, 204);
    await regenerate();
    await eventually('host', (text) => liveLink('hidden').test(text) && !text.includes('dt-wikilink-unavailable" data-slug="hidden'), 'the link to the now public page');
    html = (await content('host')).html;
    assert.ok(!html.includes(textOnly('hidden', 'the hidden page')), html);
  });

  test('a phantom whose page is created becomes a link after regeneration', async () => {
    assert.ok((await content('host')).html.includes(textOnly('giessplan', 'Gießplan')));
    ids.giessplan = await createPage(admin, pond.id, { title: 'Gießplan', slug: 'giessplan', markdown: 'Wednesdays.' });
    await regenerate();
    await eventually('host', (text) => liveLink('giessplan').test(text), 'the phantom to turn into a link');
  });
});
