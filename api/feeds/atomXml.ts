/**
 * Writes an Atom 1.0 document (RFC 4287) from a feed model. Every text goes through `xmlText`
 * or `xmlAttribute`: characters XML 1.0 cannot carry at all (C0 controls other than tab, line
 * feed and carriage return, U+FFFE/U+FFFF, lone surrogates) are dropped, and the markup
 * characters are escaped, so a title like `]]></title><script>` stays text. HTML content is
 * sent escaped inside `<content type="html">` (never CDATA, which a `]]>` in the HTML would end).
 * The content carries `xml:base`, the page's human URL: the page HTML links other pages by
 * relative slug and media by root path, and readers that ignore `xml:base` resolve against the
 * entry's alternate link, the same URL.
 */

export interface AtomEntry {
  /** A permanent, unique IRI (`urn:uuid:…`). */
  id: string;
  title: string;
  updated: Date;
  published?: Date | null;
  /** Display names; an entry without any takes the feed's authors. */
  authors: readonly string[];
  /** The human page the entry is about (`rel=alternate`, text/html). */
  link: string;
  /** Plain text. */
  summary?: string | null;
  /** Sanitized HTML; its relative links resolve against `link` (sent as the content's `xml:base`). */
  contentHtml?: string | null;
}

export interface AtomFeed {
  id: string;
  title: string;
  subtitle?: string | null;
  updated: Date;
  /** `rel=self`: the feed's own address, without any token. */
  selfUrl: string;
  /** `rel=alternate`: the human page the feed follows. */
  alternateUrl: string;
  language: string;
  generator: { name: string; version?: string };
  /** The feed-level authors every entry without its own falls back to (RFC 4287 4.1.1). */
  authors: readonly string[];
  entries: readonly AtomEntry[];
}

/**
 * A feed's `updated` (and `Last-Modified`): its newest entry, or later when the feed's own
 * title changed since (a renamed pond or page).
 */
export function feedUpdatedAt(newestEntry: Date | undefined, subjectUpdated: Date): Date {
  return newestEntry && newestEntry > subjectUpdated ? newestEntry : subjectUpdated;
}

// Everything outside XML 1.0's Char production; with the `u` flag a lone surrogate is one code point, outside every range.
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const TEXT_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** The text without characters an XML 1.0 document cannot contain. */
export function withoutInvalidXmlChars(value: string): string {
  return value.replace(NOT_XML_CHAR, '');
}

/** Element content: invalid characters dropped, `&`, `<` and `>` escaped (so `]]>` cannot appear). */
export function xmlText(value: string): string {
  return withoutInvalidXmlChars(value).replace(/[&<>]/g, (char) => TEXT_ESCAPES[char]!);
}

/** A double-quoted attribute value; tab and line breaks as references, since attribute normalization would turn them into spaces. */
export function xmlAttribute(value: string): string {
  return withoutInvalidXmlChars(value)
    .replace(/[&<>"']/g, (char) => TEXT_ESCAPES[char]!)
    .replace(/[\t\n\r]/g, (char) => `&#${char.charCodeAt(0)};`);
}

const timestamp = (date: Date) => date.toISOString();

function element(name: string, text: string, attributes = ''): string {
  return `<${name}${attributes}>${xmlText(text)}</${name}>`;
}

function authorElements(names: readonly string[], indent: string): string[] {
  return names.map((name) => `${indent}<author><name>${xmlText(name)}</name></author>`);
}

function link(rel: string, href: string, type: string): string {
  return `<link rel="${rel}" type="${type}" href="${xmlAttribute(href)}"/>`;
}

function entryXml(entry: AtomEntry): string {
  const lines = [
    '  <entry>',
    `    ${element('id', entry.id)}`,
    `    ${element('title', entry.title, ' type="text"')}`,
    `    ${element('updated', timestamp(entry.updated))}`,
  ];
  if (entry.published) lines.push(`    ${element('published', timestamp(entry.published))}`);
  lines.push(...authorElements(entry.authors, '    '));
  lines.push(`    ${link('alternate', entry.link, 'text/html')}`);
  if (entry.summary) lines.push(`    ${element('summary', entry.summary, ' type="text"')}`);
  if (entry.contentHtml) lines.push(`    ${element('content', entry.contentHtml, ` type="html" xml:base="${xmlAttribute(entry.link)}"`)}`);
  lines.push('  </entry>');
  return lines.join('\n');
}

export function renderAtomFeed(feed: AtomFeed): string {
  const generatorVersion = feed.generator.version ? ` version="${xmlAttribute(feed.generator.version)}"` : '';
  const lines = [
    '<?xml version="1.0" encoding="utf-8"?>',
    `<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="${xmlAttribute(feed.language)}">`,
    `  ${element('id', feed.id)}`,
    `  ${element('title', feed.title, ' type="text"')}`,
  ];
  if (feed.subtitle) lines.push(`  ${element('subtitle', feed.subtitle, ' type="text"')}`);
  lines.push(
    `  ${element('updated', timestamp(feed.updated))}`,
    `  ${link('self', feed.selfUrl, 'application/atom+xml')}`,
    `  ${link('alternate', feed.alternateUrl, 'text/html')}`,
    `  ${element('generator', feed.generator.name, generatorVersion)}`,
    ...authorElements(feed.authors, '  '),
    ...feed.entries.map(entryXml),
    '</feed>',
    '',
  );
  return lines.join('\n');
}
