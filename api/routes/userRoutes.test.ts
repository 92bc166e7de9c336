/**
 * The signed-in user's own account through HTTP: the spec's preference defaults, updates that
 * persist, validation of the patch, and error messages in the user's or the browser's language.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { errorMessagesDe } from '../i18n/errorMessages.de.ts';
import { errorMessagesEn } from '../i18n/errorMessages.en.ts';
import { User } from '../models/index.ts';
import { completeSetup, createVerifiedUser, resetRateLimits } from '../testing/fixtures.ts';
import { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

describe('current user', () => {
  let instance: TestInstance;
  before(async () => {
    instance = await startTestInstance();
    await completeSetup(instance);
  });
  after(() => instance.close());
  beforeEach(() => resetRateLimits(instance));

  test('GET /users/me anonymously answers 401 unauthenticated', async () => {
    const response = await new TestClient(instance.baseUrl).get('/users/me');
    assert.equal(response.status, 401);
    assert.equal(response.body.error.code, 'unauthenticated');
  });

  test('a new account has digestFrequency hourly and both auto-watch preferences on', async () => {
    const { client, user } = await createVerifiedUser(instance);
    const me = await client.get('/users/me');
    assert.equal(me.status, 200);
    assert.equal(me.body.id, user.id);
    assert.equal(me.body.digestFrequency, 'hourly');
    assert.equal(me.body.autoWatchOwnPages, true);
    assert.equal(me.body.autoWatchOnComment, true);
    assert.equal(me.body.passwordHash, undefined);
  });

  test('PATCH /users/me updates the profile and preferences, and they persist', async () => {
    const { client, user } = await createVerifiedUser(instance);
    const patch = { displayName: 'Karla Kröte', locale: 'de', digestFrequency: 'daily', autoWatchOwnPages: false, autoWatchOnComment: false };
    const response = await client.patch('/users/me', patch);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(
      { displayName: response.body.displayName, locale: response.body.locale, digestFrequency: response.body.digestFrequency, autoWatchOwnPages: response.body.autoWatchOwnPages, autoWatchOnComment: response.body.autoWatchOnComment },
      patch,
    );
    const me = await client.get('/users/me');
    assert.equal(me.body.digestFrequency, 'daily');
    assert.equal(me.body.autoWatchOwnPages, false);
    const stored = await User.findByPk(user.id);
    assert.equal(stored!.displayName, 'Karla Kröte');
    assert.equal(stored!.digestFrequency, 'daily');
    assert.equal(stored!.autoWatchOnComment, false);
  });

  test('a partial patch leaves the other fields alone', async () => {
    const { client } = await createVerifiedUser(instance);
    assert.equal((await client.patch('/users/me', { digestFrequency: 'off' })).status, 200);
    const me = await client.get('/users/me');
    assert.equal(me.body.digestFrequency, 'off');
    assert.equal(me.body.autoWatchOwnPages, true);
    assert.equal(me.body.autoWatchOnComment, true);
  });

  test('an unknown digestFrequency answers 400 validation_failed naming the field', async () => {
    const { client, user } = await createVerifiedUser(instance);
    const response = await client.patch('/users/me', { digestFrequency: 'weekly' });
    assert.equal(response.status, 400);
    assert.equal(response.body.error.code, 'validation_failed');
    assert.deepEqual(response.body.error.details.fields.map((field: { path: string }) => field.path), ['digestFrequency']);
    assert.equal((await User.findByPk(user.id))!.digestFrequency, 'hourly');
  });

  test('an unknown field answers 400 validation_failed and changes nothing', async () => {
    const { client, user } = await createVerifiedUser(instance);
    const response = await client.patch('/users/me', { displayName: 'Sneaky', isSiteAdmin: true });
    assert.equal(response.status, 400);
    assert.equal(response.body.error.code, 'validation_failed');
    const stored = await User.findByPk(user.id);
    assert.equal(stored!.isSiteAdmin, false);
    assert.notEqual(stored!.displayName, 'Sneaky');
  });

  test('an empty patch answers 400 validation_failed', async () => {
    const { client } = await createVerifiedUser(instance);
    const response = await client.patch('/users/me', {});
    assert.equal(response.status, 400);
    assert.equal(response.body.error.code, 'validation_failed');
  });

  test('Accept-Language: de gives the German error message', async () => {
    const { client } = await createVerifiedUser(instance);
    const response = await client.patch('/users/me', { digestFrequency: 'weekly' }, { headers: { 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' } });
    assert.equal(response.status, 400);
    assert.equal(response.body.error.message, errorMessagesDe.validation_failed);
    assert.notEqual(errorMessagesDe.validation_failed, errorMessagesEn.validation_failed);
  });

  test('a user with locale de gets German messages even with Accept-Language: en', async () => {
    const { client } = await createVerifiedUser(instance, { locale: 'de' });
    const response = await client.patch('/users/me', { digestFrequency: 'weekly' }, { headers: { 'accept-language': 'en' } });
    assert.equal(response.status, 400);
    assert.equal(response.body.error.message, errorMessagesDe.validation_failed);
  });

  test('clearing the locale falls back to Accept-Language again', async () => {
    const { client } = await createVerifiedUser(instance, { locale: 'de' });
    assert.equal((await client.patch('/users/me', { locale: null })).status, 200);
    const response = await client.patch('/users/me', { digestFrequency: 'weekly' }, { headers: { 'accept-language': 'en' } });
    assert.equal(response.body.error.message, errorMessagesEn.validation_failed);
  });
});
