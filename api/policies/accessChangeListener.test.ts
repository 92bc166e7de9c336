/**
 * `pond_access_changed` through a real LISTEN: every kind of change (grants, members, label
 * tree, label assignments, pond trash and restore) notifies with the pond id once it
 * commits; a refused change notifies nothing. The listener that other processes run drops
 * its cached access data on each notification.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import pg from 'pg';
import { completeSetup, createVerifiedUser, resetRateLimits } from '../testing/fixtures.ts';
import { seedPage, seedSharedPond } from '../testing/accessFixtures.ts';
import type { TestClient } from '../testing/testClient.ts';
import { waitFor } from '../testing/polling.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';
import { startAccessChangeListener, type AccessChangeListener } from './accessChangeListener.ts';
import { ACCESS_CHANNEL } from './pondAccessCache.ts';

describe('pond_access_changed', () => {
  let instance: TestInstance;
  let listener: pg.Client;
  let received: string[] = [];
  let owner: TestClient;
  let ownerId: string;
  let pondId: string;
  let pageId: string;
  let secondListener: AccessChangeListener;
  const secondListenerSaw: string[] = [];

  before(async () => {
    instance = await startTestInstance();
    await completeSetup(instance);
    const created = await createVerifiedUser(instance);
    owner = created.client;
    ownerId = created.user.id;
    const pond = await seedSharedPond(ownerId);
    pondId = pond.id;
    pageId = (await seedPage(pondId, 'Labelled page')).id;
    const url = instance.services.config.databaseUrl!;
    listener = new pg.Client({ connectionString: url });
    await listener.connect();
    listener.on('notification', (message) => {
      if (message.channel === ACCESS_CHANNEL && message.payload) received.push(message.payload);
    });
    await listener.query(`LISTEN ${ACCESS_CHANNEL}`);
    secondListener = startAccessChangeListener(url, instance.services.logger, (changed) => secondListenerSaw.push(changed));
  });
  after(async () => {
    await secondListener.stop();
    await listener.end();
    await instance.close();
  });
  beforeEach(async () => {
    await resetRateLimits(instance);
    received = [];
  });

  /** Waits until a notification for the pond arrives (or fails after 3 s). */
  async function expectNotification(what: string): Promise<void> {
    await waitFor(() => received.includes(pondId), 3000, `${ACCESS_CHANNEL} for ${what}`);
  }

  async function expectSilence(what: string): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(received, [], `unexpected ${ACCESS_CHANNEL} for ${what}`);
  }

  test('grant created and deleted', async () => {
    const created = await owner.post(`/ponds/${pondId}/grants`, { subject: { type: 'signed-in' }, role: 'reader', scope: { type: 'pond' }, effect: 'allow' });
    assert.equal(created.status, 201, created.text);
    await expectNotification('grant creation');
    received = [];
    const duplicate = await owner.post(`/ponds/${pondId}/grants`, { subject: { type: 'signed-in' }, role: 'reader', scope: { type: 'pond' }, effect: 'deny' });
    assert.equal(duplicate.status, 409);
    await expectSilence('a refused grant');
    const deleted = await owner.request('DELETE', `/ponds/${pondId}/grants/${created.body.id}`);
    assert.equal(deleted.status, 204, deleted.text);
    await expectNotification('grant deletion');
  });

  test('member added, role changed and removed', async () => {
    const { credentials, user } = await createVerifiedUser(instance);
    assert.equal((await owner.post(`/ponds/${pondId}/members`, { user: credentials.username, role: 'reader' })).status, 201);
    await expectNotification('member added');
    received = [];
    assert.equal((await owner.patch(`/ponds/${pondId}/members/${user.id}`, { role: 'editor' })).status, 200);
    await expectNotification('member role changed');
    received = [];
    assert.equal((await owner.request('DELETE', `/ponds/${pondId}/members/${user.id}`)).status, 204);
    await expectNotification('member removed');
  });

  test('label tree changes and label assignments', async () => {
    const parent = await owner.post(`/ponds/${pondId}/labels`, { name: 'Parent', color: '#112233' });
    assert.equal(parent.status, 201, parent.text);
    await expectNotification('label created');
    const child = await owner.post(`/ponds/${pondId}/labels`, { name: 'Child', color: '#112233' });
    received = [];
    assert.equal((await owner.patch(`/labels/${child.body.id}`, { parentId: parent.body.id })).status, 200);
    await expectNotification('label moved');
    received = [];
    assert.equal((await owner.request('PUT', `/pages/${pageId}/labels`, { body: { labelIds: [child.body.id] } })).status, 200);
    await expectNotification('label assigned');
    received = [];
    assert.equal((await owner.request('DELETE', `/labels/${parent.body.id}`)).status, 204);
    await expectNotification('label subtree deleted');
  });

  test('pond trashed and restored, seen by a second process listener too', async () => {
    secondListenerSaw.length = 0;
    assert.equal((await owner.post(`/ponds/${pondId}/trash`)).status, 200);
    await expectNotification('pond trashed');
    received = [];
    assert.equal((await owner.post(`/ponds/${pondId}/restore`)).status, 200);
    await expectNotification('pond restored');
    await waitFor(() => secondListenerSaw.filter((id) => id === pondId).length >= 2, 3000, 'the second listener to see both changes');
    assert.equal(secondListenerSaw.filter((id) => id === pondId).length, 2);
  });
});
