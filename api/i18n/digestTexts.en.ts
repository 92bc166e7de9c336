/**
 * English texts of the notification digest mail (api/mail/digestMail.ts) and of the pages its
 * unsubscribe link opens (api/notifications/unsubscribePage.ts). `{name}` stands for a value
 * filled in when rendered. The German catalogue must have the same keys and placeholders.
 */
export const digestTextsEn = {
  'mail.subject.one': 'News on 1 page in {instanceName}',
  'mail.subject.other': 'News on {count} pages in {instanceName}',
  'mail.greeting': 'Hello {displayName},',
  'mail.intro': 'here is what is new for you:',
  'mail.changed.one': 'Changed once',
  'mail.changed.other': 'Changed {count} times',
  'mail.changedBy.one': 'Changed once by {actors}',
  'mail.changedBy.other': 'Changed {count} times by {actors}',
  'mail.version': 'latest version: “{label}”',
  'mail.comments.one': '1 new comment',
  'mail.comments.other': '{count} new comments',
  'mail.commentsBy.one': '1 new comment by {actors}',
  'mail.commentsBy.other': '{count} new comments by {actors}',
  'mail.quote': '“{excerpt}”',
  'mail.mentioned': 'You were mentioned',
  'mail.mentionedBy': 'You were mentioned by {actors}',
  'mail.actors.last': '{names} and {last}',
  'mail.actors.more': '{names} and {count} more',
  'mail.cadence.hourly': 'You get this summary at most once an hour while there is news.',
  'mail.cadence.daily': 'You get this summary at most once a day while there is news.',
  'mail.settings': 'Change how often in your settings: {url}',
  'mail.settingsLink': 'Change how often in your settings',
  'mail.unsubscribe': 'Stop these e-mails: {url}',
  'mail.unsubscribeLink': 'Stop these e-mails',
  'page.confirm.title': 'Stop e-mail summaries?',
  'page.confirm.body': '{displayName} will no longer get e-mail summaries of notifications from {instanceName}. Notifications still show in the app.',
  'page.confirm.button': 'Stop e-mail summaries',
  'page.done.title': 'E-mail summaries stopped',
  'page.done.body': 'You will no longer get e-mail summaries from {instanceName}. You can switch them on again in your settings.',
  'page.settings': 'Open settings',
  'page.invalid.title': 'This link does not work',
  'page.invalid.body': 'The unsubscribe link is incomplete or not valid. Copy the whole link from the e-mail, or change your e-mail settings after signing in.',
} as const satisfies Record<string, string>;

export type DigestTextKey = keyof typeof digestTextsEn;
