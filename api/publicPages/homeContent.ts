/**
 * The landing page's text: the `home.content` setting, or a built-in welcome while it is
 * empty. The welcome is written in the instance default locale, never the caller's: the
 * landing document is identical for everyone (generated once, served as stored bytes), and
 * `GET /api/v1/home/content` answers the same text as that document shows.
 */
import { documentToHtml, markdownToDocument } from '../../content-pipeline/index.ts';
import { apiText } from '../i18n/apiTexts.ts';
import type { Locale } from '../i18n/locale.ts';
import { getSetting } from '../settings/instanceSettings.ts';

export interface HomeContent {
  /** The Markdown the landing page shows: the setting, or the built-in welcome. */
  markdown: string;
  /** Rendered by the content pipeline (sanitized; raw HTML stays text). */
  html: string;
  /** True while `home.content` is empty (blank counts as empty) and the welcome is shown. */
  isDefault: boolean;
}

/**
 * Backslash-escapes every ASCII punctuation character (CommonMark allows that for all of
 * them), so an instance name like `*Teich* [x](javascript:…)` reads literally in the heading.
 * Line breaks collapse to spaces: a newline would end the heading.
 */
function literalMarkdown(text: string): string {
  return text.replace(/\s+/g, ' ').trim().replace(/[!-/:-@[-`{-~]/g, '\\$&');
}

/** The built-in welcome in Markdown, naming the instance. */
export function defaultHomeMarkdown(locale: Locale, instanceName: string): string {
  const name = literalMarkdown(instanceName);
  // A function replacement: a `$&` or `$1` in the name must stay literal.
  return apiText('home.welcomeMarkdown', locale).replace('{instance}', () => name);
}

/** Renders landing or legal Markdown exactly as the public documents show it. */
export function renderSiteMarkdown(markdown: string): string {
  return documentToHtml(markdownToDocument(markdown));
}

/** The landing page for a `home.content` text (saved or previewed): blank counts as empty. */
export async function homeContentFor(text: string): Promise<HomeContent> {
  if (text.trim()) return { markdown: text, html: renderSiteMarkdown(text), isDefault: false };
  const [locale, instanceName] = await Promise.all([getSetting('instance.defaultLocale'), getSetting('instance.name')]);
  const markdown = defaultHomeMarkdown(locale, instanceName);
  return { markdown, html: renderSiteMarkdown(markdown), isDefault: true };
}

/** The landing page's current text from the settings, rendered. */
export async function loadHomeContent(): Promise<HomeContent> {
  return homeContentFor(await getSetting('home.content'));
}
