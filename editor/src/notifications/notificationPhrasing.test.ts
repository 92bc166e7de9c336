import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { NotificationPayload, NotificationType } from '../api/apiViews.ts';
import { createTranslator } from '../i18n/translator.ts';
import { actorList, badgeText, phraseNotification } from './notificationPhrasing.ts';

const en = createTranslator('en');
const de = createTranslator('de');

function payload(overrides: Partial<NotificationPayload> = {}): NotificationPayload {
  return { pondName: 'Team', pondSlug: 'team', pageTitle: 'Roadmap', pageSlug: 'roadmap', actors: [{ id: 'a', displayName: 'Anna' }], changeCount: 1, commentCount: 0, ...overrides };
}

const people = (...names: string[]) => names.map((displayName, index) => ({ id: String(index), displayName }));
const phrase = (type: NotificationType, overrides: Partial<NotificationPayload>, locale: 'de' | 'en' = 'en') => phraseNotification({ type, payload: payload(overrides) }, locale === 'en' ? en : de, locale);

test('a page change names its actors and page, and counts folded changes', () => {
  assert.deepEqual(phrase('page_changed', {}), { sentence: 'Anna changed ‘Roadmap’', detail: null });
  assert.equal(phrase('page_changed', { actors: people('Anna', 'Ben'), changeCount: 3 }).sentence, 'Anna and Ben changed ‘Roadmap’ (3 changes)');
  assert.equal(phrase('page_changed', { actors: people('Anna', 'Ben'), changeCount: 3 }, 'de').sentence, 'Anna und Ben haben „Roadmap“ geändert (3 Änderungen)');
  assert.equal(phrase('page_changed', {}, 'de').sentence, 'Anna hat „Roadmap“ geändert');
});

test('a named version is the second line', () => {
  assert.equal(phrase('page_changed', { versionLabel: 'Q3 plan' }).detail, 'Version ‘Q3 plan’');
  assert.equal(phrase('page_changed', { versionLabel: 'Q3 plan' }, 'de').detail, 'Version „Q3 plan“');
  assert.equal(phrase('page_changed', { versionLabel: null }).detail, null);
});

test('comments count when more than one, with the latest excerpt', () => {
  const two = phrase('comment', { commentCount: 2, commentExcerpt: 'Looks good' });
  assert.deepEqual(two, { sentence: 'Anna commented on ‘Roadmap’ (2 comments)', detail: 'Looks good' });
  assert.equal(phrase('comment', { commentCount: 1 }).sentence, 'Anna commented on ‘Roadmap’');
  assert.equal(phrase('comment', { commentCount: 2, actors: people('Anna', 'Ben') }, 'de').sentence, 'Anna und Ben haben „Roadmap“ kommentiert (2 Kommentare)');
});

test('a mention speaks to the reader', () => {
  assert.equal(phrase('mentioned', {}).sentence, 'Anna mentioned you in ‘Roadmap’');
  assert.equal(phrase('mentioned', {}, 'de').sentence, 'Anna hat dich in „Roadmap“ erwähnt');
});

test('many actors are cut to two and the rest counted; nobody named is "Someone"', () => {
  assert.equal(actorList(people('Anna', 'Ben', 'Carl'), en, 'en'), 'Anna, Ben, and Carl');
  assert.equal(actorList(people('Anna', 'Ben', 'Carl', 'Dora'), en, 'en'), 'Anna, Ben, and 2 others');
  assert.equal(actorList(people('Anna', 'Ben', 'Carl', 'Dora'), de, 'de'), 'Anna, Ben und 2 weitere');
  assert.equal(actorList([], en, 'en'), 'Someone');
  assert.equal(actorList(people(' '), de, 'de'), 'Jemand');
  assert.equal(phrase('page_changed', { actors: [] }, 'de').sentence, 'Jemand hat „Roadmap“ geändert');
});

test('the badge stops counting at 99', () => {
  assert.equal(badgeText(7), '7');
  assert.equal(badgeText(99), '99');
  assert.equal(badgeText(100), '99+');
});
