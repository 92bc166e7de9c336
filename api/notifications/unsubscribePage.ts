/**
 * The small self-contained pages the unsubscribe link of a digest mail opens (spec,
 * Authentication 6): the confirmation with its one button, the done page, and the page for a
 * link that does not work. They stand outside the app (no session, no cookie, no script), read
 * well on a phone, and carry their own policy: the one inline style block is allowed by its
 * hash, the form may post only to us, and no referrer leaves the page (its address holds the token).
 */
import { createHash } from 'node:crypto';
import type { Response } from 'express';
import { escapeHtml } from '../html/escapeHtml.ts';
import { digestText } from '../i18n/digestTexts.ts';
import type { Locale } from '../i18n/locale.ts';

const STYLE = [
  ':root{color-scheme:light dark;--text:#1d2433;--muted:#4a5363;--bg:#f6f7f9;--card:#fff;--accent:#1a56a6;--accent-text:#fff}',
  '@media (prefers-color-scheme:dark){:root{--text:#e7e9ee;--muted:#b4bac6;--bg:#15181e;--card:#1f232b;--accent:#8ab4f8;--accent-text:#10131a}}',
  '*{box-sizing:border-box}',
  'body{margin:0;background:var(--bg);color:var(--text);font:1.0625rem/1.55 system-ui,-apple-system,"Segoe UI",sans-serif}',
  'main{max-width:32rem;margin:0 auto;padding:2.5rem 1.25rem}',
  '.card{background:var(--card);border-radius:12px;padding:1.5rem 1.25rem;box-shadow:0 1px 3px rgb(0 0 0/.12)}',
  '.instance{margin:0 0 .5rem;color:var(--muted);font-size:.9375rem}',
  'h1{margin:0 0 .75rem;font-size:1.5rem;line-height:1.25}',
  'p{margin:0 0 1rem}',
  'button{display:block;width:100%;min-height:3rem;margin:1.25rem 0 1rem;padding:.75rem 1rem;border:0;border-radius:8px;background:var(--accent);color:var(--accent-text);font:inherit;font-weight:600;cursor:pointer}',
  'button:focus-visible,a:focus-visible{outline:3px solid var(--accent);outline-offset:3px}',
  'a{color:var(--accent)}',
].join('');

/** Allows exactly the style block above: nothing else may style, load or run. */
const PAGE_CSP = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;

export type UnsubscribePage =
  | { kind: 'confirm'; token: string; displayName: string }
  | { kind: 'done' }
  | { kind: 'invalid' };

/** Sends the page as the whole answer. */
export function sendUnsubscribePage(res: Response, page: UnsubscribePage, context: { locale: Locale; instanceName: string; status?: number }): void {
  const { locale, instanceName } = context;
  const text = (key: Parameters<typeof digestText>[0], values: Record<string, string> = {}) => escapeHtml(digestText(key, locale, { instanceName, ...values }));
  let title: string;
  let content: string;
  switch (page.kind) {
    case 'confirm':
      title = text('page.confirm.title');
      content = [
        `<p>${text('page.confirm.body', { displayName: page.displayName })}</p>`,
        `<form method="post" action="/api/v1/unsubscribe"><input type="hidden" name="token" value="${escapeHtml(page.token)}"><button type="submit">${text('page.confirm.button')}</button></form>`,
        `<p><a href="/settings">${text('page.settings')}</a></p>`,
      ].join('');
      break;
    case 'done':
      title = text('page.done.title');
      content = `<p>${text('page.done.body')}</p><p><a href="/settings">${text('page.settings')}</a></p>`;
      break;
    case 'invalid':
      title = text('page.invalid.title');
      content = `<p>${text('page.invalid.body')}</p><p><a href="/settings">${text('page.settings')}</a></p>`;
      break;
  }
  const html = [
    `<!doctype html><html lang="${locale}"><head><meta charset="utf-8">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex">',
    `<title>${title} – ${escapeHtml(instanceName)}</title><style>${STYLE}</style></head>`,
    `<body><main><div class="card"><p class="instance">${escapeHtml(instanceName)}</p><h1>${title}</h1>${content}</div></main></body></html>`,
  ].join('');
  res.status(context.status ?? 200);
  res.setHeader('Content-Security-Policy', PAGE_CSP);
  res.setHeader('Referrer-Policy', 'no-referrer');
  // The confirmation page holds the token: no cache keeps it.
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Robots-Tag', 'noindex');
  res.type('html').send(html);
}
