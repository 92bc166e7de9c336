/**
 * The dependency index: every kind of change regenerates the documents that show it, and
 * only those (an unaffected document keeps its stored bytes, ETag and generation time).
 * Transclusions as the public sees them: same pond, public, depth ≤ 2; cycles, missing,
 * private and cross-pond targets degrade to a plain wikilink.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { markdownToDocument } from '../../content-pipeline/index.ts';
import { saveDerivedData } from '../documents/derivedData.ts';
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

async function get(path: string) {
  const response = await fetch(new URL(path, instance.baseUrl));
  return { status: response.status, text: await response.text(), etag: response.headers.get('etag') };
}

/**
 * Waits until the public layer serves `path` as `expected` says. A regeneration run in this
 * process reaches the server's document cache through Postgres (NOTIFY on the documents
 * channel), so the bytes served follow the stored ones a moment after it returns.
 */
async function servedEventually(path: string, expected: (text: string) => boolean): Promise<void> {
  await waitFor(async () => expected((await get(path)).text), 5_000, `${path} to be served as expected`);
}

/** Stored documents by path: ETag and generation time. */
async function snapshot(): Promise<Map<string, string>> {
  const [rows] = (await instance.services.sequelize.query(`SELECT path, etag, generated_at FROM public_documents WHERE pond_id = '${pond.id}'`)) as [{ path: string; etag: string; generated_at: Date }[], unknown];
  return new Map(rows.map((row) => [row.path, `${row.etag}@${new Date(row.generated_at).toISOString()}`]));
}

async function regenerate(): Promise<void> {
  await runQueuedRegeneration({ sequelize: instance.services.sequelize, fallbackBaseUrl: instance.baseUrl }, instance.services.logger);
}

/** Paths whose stored document changed between two snapshots (new and removed ones too). */
function changedPaths(before: Map<string, string>, after: Map<string, string>): string[] {
  const paths = new Set([...before.keys(), ...after.keys()]);
  return [...paths].filter((path) => before.get(path) !== after.get(path)).sort();
}

async function save(slug: string, markdown: string): Promise<void> {
  await saveDerivedData(instance.services.sequelize, { pageId: ids[slug]!, document: markdownToDocument(markdown), authorIds: [] });
}

const ALL = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta'];

before(async () => {
  instance = await startTestInstance();
  admin = await completeSetup(instance);
  pond = (await admin.post('/ponds', { name: 'Deps', slug: 'deps' })).body;
  await grantPublic(admin, pond.id, { type: 'pond' });
  ids.alpha = await createPage(admin, pond.id, { title: 'Alpha', slug: 'alpha', markdown: 'Root page.' });
  ids.beta = await createPage(admin, pond.id, { title: 'Beta', slug: 'beta', parentId: ids.alpha, markdown: 'Child of alpha.' });
  ids.gamma = await createPage(admin, pond.id, { title: 'Gamma', slug: 'gamma', parentId: ids.beta, markdown: 'Grandchild text.' });
  ids.delta = await createPage(admin, pond.id, { title: 'Delta', slug: 'delta', markdown: 'See [[beta]].' });
  ids.epsilon = await createPage(admin, pond.id, { title: 'Epsilon', slug: 'epsilon', markdown: 'Quoting:\n\n![[gamma]]\n' });
  ids.zeta = await createPage(admin, pond.id, { title: 'Zeta', slug: 'zeta', markdown: 'Unrelated.' });
  ids.eta = await createPage(admin, pond.id, { title: 'Eta', slug: 'eta', markdown: 'Waiting for:\n\n![[later]]\n' });
});

beforeEach(async () => {
  await regenerate();
  // Every document stored, so each test sees which ones a change rewrites.
  for (const slug of ALL) assert.equal((await get(`/deps/${slug}`)).status, 200);
  assert.equal((await get('/deps')).status, 200);
  await regenerate();
});

after(async () => {
  await instance.close();
});

describe('regeneration follows the dependency index', () => {
  test('a content save rewrites the page and the pages transcluding it, nothing else', async () => {
    const before = await snapshot();
    await save('gamma', 'Grandchild text, revised.');
    await regenerate();
    assert.deepEqual(changedPaths(before, await snapshot()), ['/deps/epsilon', '/deps/gamma']);
    await servedEventually('/deps/epsilon', (text) => /Grandchild text, revised\./.test(text));
  });

  test('a title change rewrites the parent (children), descendants (breadcrumbs), backlinked targets and the index', async () => {
    const before = await snapshot();
    assert.equal((await admin.patch(`/pages/${ids.beta}`, { title: 'Beta renamed' })).status, 200);
    await regenerate();
    assert.deepEqual(changedPaths(before, await snapshot()), ['/deps', '/deps/alpha', '/deps/beta', '/deps/gamma']);
    await servedEventually('/deps/gamma', (text) => text.includes('Beta renamed'));
  });

  test('a new link gives its target a backlink; removing it takes the backlink away', async () => {
    let before = await snapshot();
    await save('zeta', 'Now pointing at [[alpha]].');
    await regenerate();
    assert.deepEqual(changedPaths(before, await snapshot()), ['/deps/alpha', '/deps/zeta']);
    await servedEventually('/deps/alpha', (text) => text.includes('Zeta'));
    before = await snapshot();
    await save('zeta', 'Unrelated again.');
    await regenerate();
    assert.deepEqual(changedPaths(before, await snapshot()), ['/deps/alpha', '/deps/zeta']);
    await servedEventually('/deps/alpha', (text) => !text.includes('>Zeta<'));
  });

  test('a page appearing under a transcluded slug fills the transclusion', async () => {
    const before = await snapshot();
    ids.later = await createPage(admin, pond.id, { title: 'Later', slug: 'later', markdown: 'Arrived text.' });
    await regenerate();
    assert.deepEqual(changedPaths(before, await snapshot()), ['/deps', '/deps/eta', '/deps/later']);
    await servedEventually('/deps/eta', (text) => text.includes('Arrived text.'));
  });

  test('a move rewrites the old parent, the new parent and the moved subtree', async () => {
    const before = await snapshot();
    assert.equal((await admin.patch(`/pages/${ids.gamma}/position`, { parentId: ids.zeta })).status, 200);
    await regenerate();
    assert.deepEqual(changedPaths(before, await snapshot()), ['/deps', '/deps/beta', '/deps/gamma', '/deps/zeta']);
  });

  test('the pond name and fonts rewrite every document of the pond', async () => {
    let before = await snapshot();
    assert.equal((await admin.patch(`/ponds/${pond.id}`, { name: 'Deps renamed' })).status, 200);
    await regenerate();
    assert.deepEqual(changedPaths(before, await snapshot()), [...before.keys()].sort());
    before = await snapshot();
    assert.equal((await admin.patch(`/ponds/${pond.id}`, { fonts: { body: 'source-serif-4' } })).status, 200);
    await regenerate();
    assert.deepEqual(changedPaths(before, await snapshot()), [...before.keys()].sort());
  });

  test('losing public read deletes the page and every document showing it, in the same transaction', async () => {
    const before = await snapshot();
    const deny = await grantPublic(admin, pond.id, { type: 'page', id: ids.later! }, 'deny');
    const after = await snapshot();
    // Eta transcluded it, the index listed it: both go at once, the rest stays.
    assert.deepEqual(changedPaths(before, after), ['/deps', '/deps/eta', '/deps/later']);
    assert.equal((await get('/deps/later')).status, 404);
    assert.ok(!(await get('/deps/eta')).text.includes('Arrived text'));
    assert.equal((await admin.request('DELETE', `/ponds/${pond.id}/grants/${deny}`)).status, 204);
    // Gaining access is not urgent: the worker brings the transclusion back.
    await regenerate();
    await servedEventually('/deps/eta', (text) => text.includes('Arrived text.'));
  });
});

describe('transclusions in public documents', () => {
  test('depth, cycles, missing, private and cross-pond targets', async () => {
    const other = (await admin.post('/ponds', { name: 'Elsewhere', slug: 'elsewhere' })).body;
    await grantPublic(admin, other.id, { type: 'pond' });
    await createPage(admin, other.id, { title: 'Foreign', slug: 'foreign', markdown: 'Foreign words.' });
    await createPage(admin, pond.id, { title: 'Level three', slug: 't3', markdown: 'Third level text.' });
    await createPage(admin, pond.id, { title: 'Level two', slug: 't2', markdown: 'Second level text.\n\n![[t3]]\n' });
    await createPage(admin, pond.id, { title: 'Level one', slug: 't1', markdown: 'First level text.\n\n![[t2]]\n' });
    const hidden = await createPage(admin, pond.id, { title: 'Hidden', slug: 'hidden', markdown: 'Hidden words.' });
    await grantPublic(admin, pond.id, { type: 'page', id: hidden }, 'deny');
    await createPage(admin, pond.id, { title: 'Loop', slug: 'loop', markdown: 'Loop text.\n\n![[loop-back]]\n' });
    await createPage(admin, pond.id, { title: 'Loop back', slug: 'loop-back', markdown: 'Back text.\n\n![[loop]]\n' });
    await createPage(admin, pond.id, {
      title: 'Host',
      slug: 'host',
      markdown: 'Host text.\n\n![[t1]]\n\n![[nowhere]]\n\n![[hidden]]\n\n![[foreign]]\n\n![[loop]]\n\n![[host]]\n',
    });
    const content = JSON.parse((await get('/api/v1/public/deps/host/content')).text) as { html: string };
    assert.match(content.html, /First level text\./);
    assert.match(content.html, /Second level text\./);
    assert.ok(!content.html.includes('Third level text.'), 'depth 3 is not expanded');
    assert.match(content.html, /data-slug="t3"/, 'depth 3 stays a wikilink');
    assert.ok(!content.html.includes('Hidden words.'), 'a private target is not expanded');
    assert.ok(!content.html.includes('Foreign words.'), 'another pond is not expanded');
    assert.match(content.html, /data-slug="nowhere"/);
    assert.match(content.html, /Loop text\./);
    assert.match(content.html, /Back text\./);
    assert.equal(content.html.match(/Host text\./g)?.length, 1, 'a page transcluding itself is a cycle');
  });
});
