/**
 * The notification digest mail (spec: Notifications and mail): one mail per user with every
 * unread, unmailed notification, grouped per pond, then per page, each page linked, each entry
 * saying what happened (changes, comments, a mention), by whom and how often. Plain text and
 * HTML parts in the recipient's language (texts in api/i18n/digestTexts.*); every value from
 * the payload is HTML-escaped in the HTML part.
 *
 * The mail carries `List-Unsubscribe` with its one-click form (RFC 2369, RFC 8058), so mail
 * programs offer their own unsubscribe button; the same link is in the footer.
 */
import { escapeHtml } from '../html/escapeHtml.ts';
import { digestText } from '../i18n/digestTexts.ts';
import type { Locale } from '../i18n/locale.ts';
import type { RenderedMail } from './templates.ts';

export type DigestEntryType = 'page_changed' | 'comment' | 'mentioned';

export interface DigestEntry {
  type: DigestEntryType;
  /** Display names, first seen first (the payload keeps at most 10). */
  actors: readonly string[];
  changeCount: number;
  commentCount: number;
  versionLabel?: string | null | undefined;
  commentExcerpt?: string | undefined;
}

/** One notification with where it points, as the digest reads it. */
export interface DigestItem {
  pondId: string;
  pondName: string;
  pageId: string;
  pageTitle: string;
  /** Absolute link to the page. */
  pageUrl: string;
  entry: DigestEntry;
}

export interface DigestPage {
  title: string;
  url: string;
  entries: DigestEntry[];
}

export interface DigestPond {
  name: string;
  pages: DigestPage[];
}

export interface DigestMailInput {
  displayName: string;
  instanceName: string;
  frequency: 'hourly' | 'daily';
  ponds: readonly DigestPond[];
  settingsUrl: string;
  unsubscribeUrl: string;
}

export interface RenderedDigestMail extends RenderedMail {
  headers: Record<string, string>;
}

const ENTRY_ORDER: Record<DigestEntryType, number> = { page_changed: 0, comment: 1, mentioned: 2 };
/** Names written out before "and N more". */
const NAMED_ACTORS = 3;

/** Ponds by name, their pages by title, each page's entries as changes, comments, mentions. */
export function groupDigestItems(items: readonly DigestItem[], locale: Locale): DigestPond[] {
  const ponds = new Map<string, { name: string; pages: Map<string, DigestPage> }>();
  for (const item of items) {
    let pond = ponds.get(item.pondId);
    if (!pond) ponds.set(item.pondId, (pond = { name: item.pondName, pages: new Map() }));
    let page = pond.pages.get(item.pageId);
    if (!page) pond.pages.set(item.pageId, (page = { title: item.pageTitle, url: item.pageUrl, entries: [] }));
    page.entries.push(item.entry);
  }
  const byText = (a: string, b: string) => a.localeCompare(b, locale);
  return [...ponds.values()]
    .map((pond) => ({
      name: pond.name,
      pages: [...pond.pages.values()].map((page) => ({ ...page, entries: page.entries.sort((a, b) => ENTRY_ORDER[a.type] - ENTRY_ORDER[b.type]) })).sort((a, b) => byText(a.title, b.title)),
    }))
    .sort((a, b) => byText(a.name, b.name));
}

export function actorList(names: readonly string[], locale: Locale): string {
  if (names.length <= 1) return names[0] ?? '';
  if (names.length <= NAMED_ACTORS) return digestText('mail.actors.last', locale, { names: names.slice(0, -1).join(', '), last: names.at(-1)! });
  return digestText('mail.actors.more', locale, { names: names.slice(0, NAMED_ACTORS).join(', '), count: names.length - NAMED_ACTORS });
}

/** What happened, in one line, plus a quoted comment for comment entries. */
function describeEntry(entry: DigestEntry, locale: Locale): { line: string; quote: string | null } {
  const actors = actorList(entry.actors, locale);
  switch (entry.type) {
    case 'page_changed': {
      const count = Math.max(1, entry.changeCount);
      const plural = count === 1 ? 'one' : 'other';
      const line = actors ? digestText(`mail.changedBy.${plural}`, locale, { count, actors }) : digestText(`mail.changed.${plural}`, locale, { count });
      return { line: entry.versionLabel ? `${line} (${digestText('mail.version', locale, { label: entry.versionLabel })})` : line, quote: null };
    }
    case 'comment': {
      const count = Math.max(1, entry.commentCount);
      const plural = count === 1 ? 'one' : 'other';
      const line = actors ? digestText(`mail.commentsBy.${plural}`, locale, { count, actors }) : digestText(`mail.comments.${plural}`, locale, { count });
      return { line, quote: entry.commentExcerpt ? digestText('mail.quote', locale, { excerpt: entry.commentExcerpt }) : null };
    }
    case 'mentioned':
      return { line: actors ? digestText('mail.mentionedBy', locale, { actors }) : digestText('mail.mentioned', locale), quote: null };
  }
}

function renderText(input: DigestMailInput, locale: Locale): string {
  const lines = [digestText('mail.greeting', locale, { displayName: input.displayName }), '', digestText('mail.intro', locale)];
  for (const pond of input.ponds) {
    lines.push('', pond.name, '-'.repeat(Math.min(pond.name.length, 60)));
    for (const page of pond.pages) {
      lines.push('', page.title, page.url);
      for (const entry of page.entries) {
        const { line, quote } = describeEntry(entry, locale);
        lines.push(`- ${line}`);
        if (quote) lines.push(`  ${quote}`);
      }
    }
  }
  lines.push(
    '',
    '--',
    digestText(`mail.cadence.${input.frequency}`, locale),
    digestText('mail.settings', locale, { url: input.settingsUrl }),
    digestText('mail.unsubscribe', locale, { url: input.unsubscribeUrl }),
  );
  return lines.join('\n');
}

const MUTED = 'color:#555;font-size:13px';

function renderHtml(input: DigestMailInput, locale: Locale): string {
  const ponds = input.ponds.map((pond) => {
    const pages = pond.pages.map((page) => {
      const entries = page.entries.map((entry) => {
        const { line, quote } = describeEntry(entry, locale);
        return `<li>${escapeHtml(line)}${quote ? `<br><span style="${MUTED}">${escapeHtml(quote)}</span>` : ''}</li>`;
      });
      return `<p style="margin:12px 0 0"><a href="${escapeHtml(page.url)}" style="font-weight:600;color:#1a56a6">${escapeHtml(page.title)}</a></p><ul style="margin:4px 0 0;padding-left:20px">${entries.join('')}</ul>`;
    });
    return `<h2 style="font-size:17px;margin:24px 0 0;padding-bottom:4px;border-bottom:1px solid #d8dce3">${escapeHtml(pond.name)}</h2>${pages.join('')}`;
  });
  return [
    `<!doctype html><html lang="${locale}"><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#1d2433;max-width:640px">`,
    `<p>${escapeHtml(digestText('mail.greeting', locale, { displayName: input.displayName }))}</p>`,
    `<p>${escapeHtml(digestText('mail.intro', locale))}</p>`,
    ...ponds,
    `<p style="${MUTED};margin-top:32px">${escapeHtml(digestText(`mail.cadence.${input.frequency}`, locale))}<br>`,
    `<a href="${escapeHtml(input.settingsUrl)}" style="color:#555">${escapeHtml(digestText('mail.settingsLink', locale))}</a> · `,
    `<a href="${escapeHtml(input.unsubscribeUrl)}" style="color:#555">${escapeHtml(digestText('mail.unsubscribeLink', locale))}</a></p>`,
    '</body></html>',
  ].join('');
}

export function renderDigestMail(input: DigestMailInput, locale: Locale): RenderedDigestMail {
  const pageCount = input.ponds.reduce((sum, pond) => sum + pond.pages.length, 0);
  return {
    subject: digestText(pageCount === 1 ? 'mail.subject.one' : 'mail.subject.other', locale, { count: pageCount, instanceName: input.instanceName }),
    text: renderText(input, locale),
    html: renderHtml(input, locale),
    headers: {
      'List-Unsubscribe': `<${input.unsubscribeUrl}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      // RFC 3834: no auto-replies ("out of office") to a machine-made mail.
      'Auto-Submitted': 'auto-generated',
    },
  };
}
