/**
 * The pond's page list through HTTP (GET /ponds/:id/pages): the readable live pages in creation
 * order, the createdSince/updatedSince filters, keyset pagination by limit and cursor, callers
 * reached by one page-scope or public grant, and the refusals.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Page } from '../models/index.ts';
import { seedGrant, seedLabel, seedPage, seedPageLabels } from '../testing/accessFixtures.ts';
import { assertError, assertFieldError, MISSING_UUID, PAGE_VIEW_KEYS, usePondCast } from '../testing/pondTestSetup.ts';
import type { TestResponse } from '../testing/testClient.ts';

describe('page listing', () => {
  const cast = usePondCast();

  async function setTimestamps(pageId: string, createdAt: string, updatedAt = createdAt): Promise<void> {
    await cast.instance.services.sequelize.query(`UPDATE pages SET created_at = :createdAt, updated_at = :updatedAt WHERE id = :pageId`, {
      replacements: { pageId, createdAt, updatedAt },
    });
  }

  describe('GET /ponds/:id/pages', () => {
    test('lists the readable live pages in creation order, parentId nulled where the parent is hidden', async () => {
      const pond = await cast.seedTeamPond();
      const parent = await seedPage(pond.id, 'Hidden parent');
      const child = await seedPage(pond.id, 'Visible child', { parentId: parent.id });
      const plain = await seedPage(pond.id, 'Plain');
      const trashed = await seedPage(pond.id, 'Binned', { trashed: true });
      await setTimestamps(parent.id, '2024-01-01T00:00:00Z');
      await setTimestamps(child.id, '2024-01-02T00:00:00Z');
      await setTimestamps(plain.id, '2024-01-03T00:00:00Z');
      await setTimestamps(trashed.id, '2024-01-04T00:00:00Z');
      await seedGrant(pond.id, { subject: { type: 'user', id: cast.reader.user.id }, role: 'reader', scope: { type: 'page', id: parent.id }, effect: 'deny' });

      const forReader = await cast.reader.client.get(`/ponds/${pond.id}/pages`);
      assert.equal(forReader.status, 200, forReader.text);
      assert.equal(forReader.body.nextCursor, null);
      assert.deepEqual(forReader.body.items.map((item: { id: string }) => item.id), [child.id, plain.id]);
      assert.deepEqual(Object.keys(forReader.body.items[0]).sort(), [...PAGE_VIEW_KEYS, 'labelIds'].sort());
      assert.equal(forReader.body.items[0].parentId, null);
      assert.equal(forReader.body.items[0].createdAt, '2024-01-02T00:00:00.000Z');
      assert.equal(forReader.body.items[0].pondId, pond.id);

      const forEditor = await cast.editor.client.get(`/ponds/${pond.id}/pages`);
      assert.deepEqual(forEditor.body.items.map((item: { id: string }) => item.id), [parent.id, child.id, plain.id], 'trashed pages are never listed');
      assert.equal(forEditor.body.items[1].parentId, parent.id);
    });

    test('each page carries its sorted labelIds (empty without labels), and they follow a change of labels', async () => {
      const pond = await cast.seedTeamPond();
      const labelled = await seedPage(pond.id, 'Labelled');
      const plain = await seedPage(pond.id, 'Plain');
      const [first, second] = [await seedLabel(pond.id, 'First'), await seedLabel(pond.id, 'Second')];
      await seedPageLabels(labelled, [first, second]);
      const labelsOf = async () => {
        const response = await cast.reader.client.get(`/ponds/${pond.id}/pages`);
        assert.equal(response.status, 200, response.text);
        return Object.fromEntries(response.body.items.map((item: { id: string; labelIds: string[] }) => [item.id, item.labelIds]));
      };
      assert.deepEqual(await labelsOf(), { [labelled.id]: [first.id, second.id].sort(), [plain.id]: [] });
      const changed = await cast.editor.client.request('PUT', `/pages/${labelled.id}/labels`, { body: { labelIds: [second.id] } });
      assert.equal(changed.status, 200, changed.text);
      assert.deepEqual(await labelsOf(), { [labelled.id]: [second.id], [plain.id]: [] });
    });

    test('createdSince and updatedSince filter inclusively; a plain date means midnight UTC', async () => {
      const pond = await cast.seedTeamPond();
      const early = await seedPage(pond.id, 'Early');
      const middle = await seedPage(pond.id, 'Middle');
      const late = await seedPage(pond.id, 'Late');
      await setTimestamps(early.id, '2024-01-01T00:00:00Z', '2024-12-01T00:00:00Z');
      await setTimestamps(middle.id, '2024-06-15T12:00:00Z', '2024-06-15T12:00:00Z');
      await setTimestamps(late.id, '2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z');
      const list = async (query: Record<string, string>) => {
        const response = await cast.reader.client.get(`/ponds/${pond.id}/pages?${new URLSearchParams(query)}`);
        assert.equal(response.status, 200, response.text);
        return response.body.items.map((item: { title: string }) => item.title);
      };
      assert.deepEqual(await list({ createdSince: '2024-06-15' }), ['Middle', 'Late']);
      assert.deepEqual(await list({ createdSince: '2024-06-15T12:00:00Z' }), ['Middle', 'Late']);
      assert.deepEqual(await list({ createdSince: '2024-06-15T14:00:01+02:00' }), ['Late']);
      assert.deepEqual(await list({ createdSince: '2025-01-02' }), []);
      assert.deepEqual(await list({ updatedSince: '2024-11-30T23:59:59.999Z' }), ['Early', 'Late']);
      assert.deepEqual(await list({ createdSince: '2024-06-01', updatedSince: '2024-07-01' }), ['Late']);
    });

    test('an invalid date, limit or cursor answers 400 naming the query field', async () => {
      const pond = await cast.seedTeamPond();
      const get = (query: string) => cast.reader.client.get(`/ponds/${pond.id}/pages?${query}`);
      assertFieldError(await get('createdSince=yesterday'), 'query.createdSince');
      assertFieldError(await get('createdSince=2024-02-30'), 'query.createdSince');
      assertFieldError(await get('createdSince=2024-06-15T12:00:00'), 'query.createdSince');
      assertFieldError(await get('updatedSince=15.06.2024'), 'query.updatedSince');
      assertFieldError(await get('updatedSince=2024-01-01&updatedSince=2024-01-02'), 'query.updatedSince');
      assertFieldError(await get('limit=0'), 'query.limit');
      assertFieldError(await get('limit=1001'), 'query.limit');
      assertFieldError(await get('limit=ten'), 'query.limit');
      assertFieldError(await get('cursor=garbage'), 'query.cursor');
      const forgeries = [['2024-02-31 00:00:00.5', MISSING_UUID], ['2024-01-01 00:00:00', 'not-a-uuid'], ['2024-01-01T00:00:00Z', MISSING_UUID], ['0000-01-01 00:00:00', MISSING_UUID]];
      for (const forged of forgeries) {
        assertFieldError(await get(`cursor=${Buffer.from(JSON.stringify(forged)).toString('base64url')}`), 'query.cursor');
      }
    });

    test('limit=2 walks every visible page exactly once, in order, ties broken by id', async () => {
      const pond = await cast.seedTeamPond();
      const pages: Page[] = [];
      for (let i = 0; i < 9; i += 1) pages.push(await seedPage(pond.id, `Page ${i}`));
      // Three share one timestamp (with microseconds the cursor must keep): the id decides among them.
      const tied = '2024-01-02T00:00:00.123456';
      const stamps = ['2024-01-01T00:00:00', tied, tied, tied, '2024-01-02T00:00:00.123457', '2024-01-04T00:00:00', '2024-01-05T00:00:00', '2024-01-06T00:00:00', '2024-01-07T00:00:00'];
      for (const [i, page] of pages.entries()) await setTimestamps(page.id, `${stamps[i]}Z`);
      const hidden = [pages[2]!, pages[5]!, pages[8]!];
      for (const page of hidden) {
        await seedGrant(pond.id, { subject: { type: 'user', id: cast.reader.user.id }, role: 'reader', scope: { type: 'page', id: page.id }, effect: 'deny' });
      }
      await Page.update({ trashedAt: new Date() }, { where: { id: pages[6]!.id } });
      const expected = pages
        .map((page, i) => ({ page, stamp: stamps[i]! }))
        .filter(({ page }) => !hidden.includes(page) && page !== pages[6])
        .sort((a, b) => a.stamp.localeCompare(b.stamp) || a.page.id.localeCompare(b.page.id))
        .map(({ page }) => page.id);
      assert.equal(expected.length, 5);

      const seen: string[] = [];
      let cursor: string | null = null;
      let requests = 0;
      do {
        const query: string = cursor ? `limit=2&cursor=${encodeURIComponent(cursor)}` : 'limit=2';
        const response: TestResponse = await cast.reader.client.get(`/ponds/${pond.id}/pages?${query}`);
        assert.equal(response.status, 200, response.text);
        assert.ok(response.body.items.length > 0 && response.body.items.length <= 2, 'no empty or oversized page');
        seen.push(...response.body.items.map((item: { id: string }) => item.id));
        cursor = response.body.nextCursor;
        requests += 1;
        assert.ok(requests < 10, 'pagination terminates');
      } while (cursor);
      assert.deepEqual(seen, expected);
      assert.equal(requests, Math.ceil(expected.length / 2));
    });

    test('a caller reached by one page-scope grant sees the list with just that page; anonymous likewise through public', async () => {
      const pond = await cast.seedTeamPond();
      const shared = await seedPage(pond.id, 'Shared with one');
      const published = await seedPage(pond.id, 'Published');
      await seedPage(pond.id, 'Private');
      assertError(await cast.outsider.client.get(`/ponds/${pond.id}/pages`), 404, 'not_found');
      assertError(await cast.anonymous.get(`/ponds/${pond.id}/pages`), 404, 'not_found');
      await seedGrant(pond.id, { subject: { type: 'user', id: cast.outsider.user.id }, role: 'reader', scope: { type: 'page', id: shared.id } });
      const forOutsider = await cast.outsider.client.get(`/ponds/${pond.id}/pages`);
      assert.equal(forOutsider.status, 200, forOutsider.text);
      assert.deepEqual(forOutsider.body, { items: [forOutsider.body.items[0]], nextCursor: null });
      assert.equal(forOutsider.body.items[0].id, shared.id);
      assertError(await cast.anonymous.get(`/ponds/${pond.id}/pages`), 404, 'not_found');
      await seedGrant(pond.id, { subject: { type: 'public' }, role: 'reader', scope: { type: 'page', id: published.id } });
      const forAnonymous = await cast.anonymous.get(`/ponds/${pond.id}/pages`);
      assert.equal(forAnonymous.status, 200, forAnonymous.text);
      assert.deepEqual(forAnonymous.body, { items: [forAnonymous.body.items[0]], nextCursor: null });
      assert.equal(forAnonymous.body.items[0].id, published.id);
    });

    test('a non-member, a malformed and an unknown pond id answer 404', async () => {
      const pond = await cast.seedTeamPond();
      await seedPage(pond.id, 'Members only');
      assertError(await cast.outsider.client.get(`/ponds/${pond.id}/pages`), 404, 'not_found');
      assertError(await cast.owner.client.get('/ponds/not-a-uuid/pages'), 404, 'not_found');
      assertError(await cast.owner.client.get(`/ponds/${MISSING_UUID}/pages`), 404, 'not_found');
    });
  });
});
