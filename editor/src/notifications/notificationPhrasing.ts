/**
 * A notification in words, from its payload alone (the list renders without joins): who did
 * what to which page ("Anna and Ben changed ‘Roadmap’ (3 changes)"), a second line with the
 * named version or the latest comment's excerpt (how long ago: ../i18n/relativeTime.ts).
 */
import type { NotificationPayload, NotificationType } from '../api/apiViews.ts';
import type { Locale, MessageKey, Translate } from '../i18n/translator.ts';

export interface NotificationPhrase {
  sentence: string;
  /** The named version (page changes) or the latest comment's excerpt; null when there is none. */
  detail: string | null;
}

/** More actors than this are cut to the first two and "n others". */
const ACTORS_NAMED_IN_FULL = 3;

const SENTENCE_KEYS: Record<NotificationType, { one: MessageKey; many: MessageKey }> = {
  page_changed: { one: 'notifications.changed.one', many: 'notifications.changed.many' },
  comment: { one: 'notifications.commented.one', many: 'notifications.commented.many' },
  mentioned: { one: 'notifications.mentioned.one', many: 'notifications.mentioned.many' },
};

/** "Anna", "Anna and Ben", "Anna, Ben and Carl", "Anna, Ben and 3 others"; "Someone" when nobody is named. */
export function actorList(actors: readonly { displayName: string }[], t: Translate, locale: Locale): string {
  const names = actors.map((actor) => actor.displayName.trim()).filter((name) => name !== '');
  if (names.length === 0) return t('notifications.someone');
  const rest = names.length - 2;
  const shown = names.length > ACTORS_NAMED_IN_FULL ? [...names.slice(0, 2), rest === 1 ? t('notifications.otherOne') : t('notifications.others', { count: rest })] : names;
  return new Intl.ListFormat(locale, { style: 'long', type: 'conjunction' }).format(shown);
}

export function phraseNotification(notification: { type: NotificationType; payload: NotificationPayload }, t: Translate, locale: Locale): NotificationPhrase {
  const { type, payload } = notification;
  const actors = payload.actors ?? [];
  const keys = SENTENCE_KEYS[type];
  // The verb agrees with the actors in German ("hat" / "haben"); English says the same either way.
  const key = actors.length > 1 ? keys.many : keys.one;
  const page = t('notifications.pageTitle', { title: payload.pageTitle });
  let sentence = t(key, { actors: actorList(actors, t, locale), page });
  if (type === 'page_changed' && payload.changeCount > 1) sentence += ` ${t('notifications.changeCount', { count: payload.changeCount })}`;
  if (type === 'comment' && payload.commentCount > 1) sentence += ` ${t('notifications.commentCount', { count: payload.commentCount })}`;
  return { sentence, detail: detailOf(type, payload, t) };
}

function detailOf(type: NotificationType, payload: NotificationPayload, t: Translate): string | null {
  if (type === 'page_changed' && payload.versionLabel) return t('notifications.version', { label: payload.versionLabel });
  if (type !== 'page_changed' && payload.commentExcerpt) return payload.commentExcerpt;
  return null;
}

/** What the badge shows: the count, or "99+" beyond. */
export function badgeText(unreadCount: number): string {
  return unreadCount > 99 ? '99+' : String(unreadCount);
}
