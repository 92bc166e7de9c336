/**
 * What the internal routes tell someone who reaches a pond only through a public grant
 * (issue 34, finding 6; docs/access-model.md, "Visitors and members"): `GET /ponds/:id`
 * without the settings and with the owner's display name only, `GET /pages/:id/files` the
 * page's claimed files with display names only, `GET /ponds/:id/labels` the labels of the
 * pages they may read and the labels above them. A label- or page-scope guest belongs to the
 * pond but reads only part of it: the whole pond and file views, the partial label tree.
 * Members who read the pond keep every answer whole.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { saveDerivedData } from '../documents/derivedData.ts';
import type { Label, Page, Pond } from '../models/index.ts';
import { seedGrant, seedLabel, seedPageLabels } from '../testing/accessFixtures.ts';
import { createVerifiedUser, resetRateLimits } from '../testing/fixtures.ts';
import { usePondCast, type SignedIn } from '../testing/pondTestSetup.ts';
import type { TestClient } from '../testing/testClient.ts';
import { TINY_PDF, TINY_PNG, uploadFile } from '../testing/uploadFixtures.ts';

describe('a pond as its visitors and its members see it', () => {
  const cast = usePondCast();
  let pond: Pond;
  /** Readable by the public; carries "Alpha" (under "Projects"). */
  let published: { id: string };
  /** Private; carries "Secret" and "Beta" (under "Projects"); holds a file of its own. */
  let privatePage: { id: string };
  /** Private, but a page-scope reader grant lets `guest` read it; carries "Internal". */
  let guestPage: { id: string };
  let labels: Record<'projects' | 'alpha' | 'beta' | 'secret' | 'internal' | 'empty', Label>;
  let claimed: { id: string };
  let unclaimed: { id: string };
  let privateFile: { id: string };
  let guest: SignedIn;

  const createPage = async (title: string): Promise<{ id: string }> => (await cast.editor.client.post(`/ponds/${pond.id}/pages`, { title })).body;
  const asPage = (page: { id: string }) => ({ id: page.id, pondId: pond.id }) as Page;

  before(async () => {
    pond = await cast.seedTeamPond();
    const settings = await cast.owner.client.patch(`/ponds/${pond.id}`, { settings: { apiEnabled: true, mcpEnabled: true } });
    assert.equal(settings.status, 200, settings.text);
    [published, privatePage, guestPage] = [await createPage('Öffentlich'), await createPage('Intern'), await createPage('Für Gäste')];
    await seedGrant(pond.id, { subject: { type: 'public' }, role: 'reader', scope: { type: 'page', id: published.id } });
    await resetRateLimits(cast.instance);
    guest = await createVerifiedUser(cast.instance);
    await seedGrant(pond.id, { subject: { type: 'user', id: guest.user.id }, role: 'reader', scope: { type: 'page', id: guestPage.id } });

    const projects = await seedLabel(pond.id, 'Projects');
    labels = {
      projects,
      alpha: await seedLabel(pond.id, 'Alpha', { parentId: projects.id }),
      beta: await seedLabel(pond.id, 'Beta', { parentId: projects.id }),
      secret: await seedLabel(pond.id, 'Secret'),
      internal: await seedLabel(pond.id, 'Internal'),
      empty: await seedLabel(pond.id, 'Empty'),
    };
    await seedPageLabels(asPage(published), [labels.alpha]);
    await seedPageLabels(asPage(privatePage), [labels.secret, labels.beta]);
    await seedPageLabels(asPage(guestPage), [labels.internal]);

    claimed = (await uploadFile(cast.editor.client, published.id, 'Seerose.png', TINY_PNG)).body;
    unclaimed = (await uploadFile(cast.editor.client, published.id, 'Entwurf.pdf', TINY_PDF)).body;
    privateFile = (await uploadFile(cast.editor.client, privatePage.id, 'Intern.pdf', TINY_PDF)).body;
    const sequelize = cast.instance.services.sequelize;
    await saveDerivedData(sequelize, { pageId: published.id, document: { type: 'doc', content: [{ type: 'image', attrs: { fileId: claimed.id, alt: null, title: null } }] }, authorIds: [] });
    await saveDerivedData(sequelize, { pageId: privatePage.id, document: { type: 'doc', content: [{ type: 'image', attrs: { fileId: privateFile.id, alt: null, title: null } }] }, authorIds: [] });
  });

  /** Visitors: the anonymous caller and a signed-in user the pond knows only through its public grant. */
  const visitors = (): [string, TestClient][] => [
    ['anonymous', cast.anonymous],
    ['signed-in non-member', cast.outsider.client],
  ];
  const usernames = () => [cast.owner.user.username, cast.editor.user.username, cast.reader.user.username];
  const labelNames = (items: { id: string }[]) => items.map((item) => Object.entries(labels).find(([, label]) => label.id === item.id)?.[0]);

  function assertNoUsernames(who: string, text: string): void {
    for (const username of usernames()) assert.ok(!text.includes(`"${username}"`), `${who}: ${username} in ${text}`);
  }

  test('GET /ponds/:id: visitors get no settings and the owner by display name; members the whole view', async () => {
    for (const [who, client] of visitors()) {
      const response = await client.get(`/ponds/${pond.id}`);
      assert.equal(response.status, 200, `${who}: ${response.text}`);
      assert.equal('settings' in response.body, false, `${who}: ${response.text}`);
      assert.deepEqual(response.body.owner, { id: cast.owner.user.id, displayName: cast.owner.credentials.displayName }, who);
      assert.equal(response.body.name, pond.name);
      assert.deepEqual(response.body.capabilities, { write: false, admin: false });
      assertNoUsernames(who, response.text);
    }
    for (const [who, client] of [['reader', cast.reader.client], ['page guest', guest.client]] as const) {
      const response = await client.get(`/ponds/${pond.id}`);
      assert.equal(response.status, 200, `${who}: ${response.text}`);
      assert.equal(response.body.settings.apiEnabled, true, who);
      assert.equal(response.body.settings.mcpEnabled, true, who);
      assert.deepEqual(response.body.owner, { id: cast.owner.user.id, username: cast.owner.user.username, displayName: cast.owner.credentials.displayName }, who);
    }
  });

  test("GET /pages/:id/files: visitors get the page's claimed files with display names only; members every upload", async () => {
    for (const [who, client] of visitors()) {
      const response = await client.get(`/pages/${published.id}/files`);
      assert.equal(response.status, 200, `${who}: ${response.text}`);
      assert.deepEqual(response.body.items.map((item: { id: string }) => item.id), [claimed.id], who);
      const [file] = response.body.items;
      assert.deepEqual(file.uploadedBy, { id: cast.editor.user.id, displayName: cast.editor.credentials.displayName }, who);
      assert.equal(file.pageId, published.id);
      assert.equal('uploadPageId' in file, false, who);
      assertNoUsernames(who, response.text);
      assert.equal((await client.get(`/pages/${privatePage.id}/files`)).status, 404, who);
    }
    for (const [who, client] of [['reader', cast.reader.client], ['page guest', guest.client], ['owner', cast.owner.client]] as const) {
      const response = await client.get(`/pages/${published.id}/files`);
      assert.equal(response.status, 200, `${who}: ${response.text}`);
      assert.deepEqual(response.body.items.map((item: { id: string }) => item.id), [claimed.id, unclaimed.id], who);
      assert.equal(response.body.items[0].uploadedBy.username, cast.editor.user.username, who);
      assert.equal(response.body.items[1].uploadPageId, published.id, who);
    }
  });

  test('GET /ponds/:id/labels: visitors and guests get the labels of the pages they read, with the labels above them; members the whole tree', async () => {
    for (const [who, client] of visitors()) {
      const response = await client.get(`/ponds/${pond.id}/labels`);
      assert.equal(response.status, 200, `${who}: ${response.text}`);
      assert.deepEqual(labelNames(response.body.items), ['projects', 'alpha'], who);
      assert.deepEqual(response.body.items.map((item: { depth: number; pageCount: number; subtreePageCount: number }) => [item.depth, item.pageCount, item.subtreePageCount]), [[1, 0, 1], [2, 1, 1]], who);
    }
    const asGuest = await guest.client.get(`/ponds/${pond.id}/labels`);
    assert.equal(asGuest.status, 200, asGuest.text);
    assert.deepEqual(labelNames(asGuest.body.items), ['internal', 'projects', 'alpha']);
    for (const [who, client] of [['reader', cast.reader.client], ['editor', cast.editor.client], ['owner', cast.owner.client]] as const) {
      const response = await client.get(`/ponds/${pond.id}/labels`);
      assert.equal(response.status, 200, `${who}: ${response.text}`);
      assert.deepEqual(labelNames(response.body.items), ['empty', 'internal', 'projects', 'alpha', 'beta', 'secret'], who);
    }
  });
});
