/**
 * `slug_taken` for the slug of a page the writer cannot read (issue 34, finding 8;
 * docs/access-model.md, "What existence still shows"). Slugs are unique per pond, so the
 * refusal itself cannot go; it must carry nothing but the code, the message and the slug
 * sent (as the schema normalises it): no id, title, spelling of its slug, place or state of
 * the page that holds it. Page creation and re-slugging
 * in the app's API, and page creation through the public REST API (the same command).
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { errorMessage } from '../i18n/locale.ts';
import { Page, type Pond } from '../models/index.ts';
import { seedGrant } from '../testing/accessFixtures.ts';
import { usePondCast } from '../testing/pondTestSetup.ts';
import { PublicApiClient } from '../testing/publicApiClient.ts';
import { issueToken, setInstanceSwitches, setPondSwitches } from '../testing/publicApiFixtures.ts';

describe('slug_taken names nothing of a page the writer cannot read', () => {
  const cast = usePondCast();
  let pond: Pond;
  let hidden: { id: string; slug: string; title: string };
  let hiddenTrashed: { id: string; slug: string; title: string };
  let own: { id: string };

  before(async () => {
    pond = await cast.seedTeamPond();
    const create = async (title: string, slug: string) => {
      const response = await cast.owner.client.post(`/ponds/${pond.id}/pages`, { title, slug });
      assert.equal(response.status, 201, response.text);
      return response.body as { id: string; slug: string; title: string };
    };
    hidden = await create('Übernahme Plan', 'uebernahme');
    // A slug from before slugs were lowercased: the refusal must not echo its spelling either.
    await Page.update({ slug: 'Uebernahme' }, { where: { id: hidden.id } });
    hidden.slug = 'Uebernahme';
    hiddenTrashed = await create('Alte Kündigungen', 'kuendigungen');
    assert.equal((await cast.owner.client.request('DELETE', `/pages/${hiddenTrashed.id}?mode=promote`)).status, 200);
    for (const page of [hidden, hiddenTrashed]) {
      await seedGrant(pond.id, { subject: { type: 'user', id: cast.editor.user.id }, role: 'reader', scope: { type: 'page', id: page.id }, effect: 'deny' });
    }
    own = (await cast.editor.client.post(`/ponds/${pond.id}/pages`, { title: 'Meine Seite' })).body;
  });

  /** Exactly the code, the message and the slug sent (lowercased by the schema); nothing of the page holding it anywhere in the text. */
  function assertBareRefusal(response: { status: number; body: any; text: string }, sent: string, page: { id: string; slug: string; title: string }): void {
    assert.equal(response.status, 409, response.text);
    assert.deepEqual(response.body, { error: { code: 'slug_taken', message: errorMessage('slug_taken', 'en'), details: { slug: sent.toLowerCase() } } });
    const ownSpelling = page.slug === sent.toLowerCase() ? [] : [page.slug];
    for (const detail of [page.id, page.title, ...ownSpelling]) assert.ok(!response.text.includes(detail), `${detail} in ${response.text}`);
  }

  test('the writer cannot read the pages that hold the slugs', async () => {
    for (const page of [hidden, hiddenTrashed]) assert.equal((await cast.editor.client.get(`/pages/${page.id}`)).status, 404);
  });

  test('POST /ponds/:id/pages with the slug of a hidden or trashed page: the bare refusal', async () => {
    for (const [page, sent] of [[hidden, 'UEBERNAHME'], [hiddenTrashed, 'kuendigungen']] as const) {
      assertBareRefusal(await cast.editor.client.post(`/ponds/${pond.id}/pages`, { title: 'Neu', slug: sent }), sent, page);
    }
  });

  test('PATCH /pages/:id to the slug of a hidden or trashed page, with or without a new title: the bare refusal', async () => {
    assertBareRefusal(await cast.editor.client.patch(`/pages/${own.id}`, { slug: 'Uebernahme' }), 'Uebernahme', hidden);
    assertBareRefusal(await cast.editor.client.patch(`/pages/${own.id}`, { title: 'Umbenannt', slug: 'kuendigungen' }), 'kuendigungen', hiddenTrashed);
    assert.equal((await cast.editor.client.get(`/pages/${own.id}`)).body.title, 'Meine Seite', 'the refused rename changed nothing');
  });

  test('the public REST API page creation answers the same', async () => {
    await setInstanceSwitches(cast.instance, { api: true });
    await setPondSwitches(pond.id, { api: true });
    const api = new PublicApiClient(cast.instance.baseUrl, (await issueToken(cast.instance, cast.editor.user.id)).secret);
    assertBareRefusal(await api.post(`/ponds/${pond.slug}/pages`, { title: 'Neu', slug: 'uebernahme' }), 'uebernahme', hidden);
  });
});
