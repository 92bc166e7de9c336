/**
 * The mails the instance sends, in the recipient's language (texts in api/i18n/mailTexts.*).
 * Each template yields a subject, a plain-text body and an HTML body; every interpolated
 * value is HTML-escaped in the HTML part.
 */
import { escapeHtml } from '../html/escapeHtml.ts';
import type { Locale } from '../i18n/locale.ts';
import { mailText, type MailTextKey } from '../i18n/mailTexts.ts';

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

export type MailTemplate =
  | { kind: 'verify_email'; displayName: string; instanceName: string; link: string }
  | { kind: 'reset_password'; displayName: string; instanceName: string; link: string }
  | { kind: 'smtp_test'; instanceName: string };

interface Paragraphs {
  subject: string;
  greeting?: string;
  lines: string[];
  link?: { url: string; label: string };
  footer: string;
}

function render(content: Paragraphs): RenderedMail {
  const text = [content.greeting, ...content.lines, content.link ? content.link.url : undefined, '', content.footer]
    .filter((line): line is string => line !== undefined)
    .join('\n\n');
  const linkHtml = content.link
    ? `<p><a href="${escapeHtml(content.link.url)}">${escapeHtml(content.link.label)}</a></p><p style="color:#555;font-size:13px">${escapeHtml(content.link.url)}</p>`
    : '';
  const html = [
    '<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#1d2433">',
    content.greeting ? `<p>${escapeHtml(content.greeting)}</p>` : '',
    ...content.lines.map((line) => `<p>${escapeHtml(line)}</p>`),
    linkHtml,
    `<p style="color:#555;font-size:13px">${escapeHtml(content.footer)}</p>`,
    '</body></html>',
  ].join('');
  return { subject: content.subject, text, html };
}

export function renderMail(template: MailTemplate, locale: Locale): RenderedMail {
  const values: Record<string, string> = template.kind === 'smtp_test' ? { instanceName: template.instanceName } : { displayName: template.displayName, instanceName: template.instanceName };
  const text = (key: MailTextKey): string => mailText(key, locale, values);
  switch (template.kind) {
    case 'verify_email':
    case 'reset_password':
      return render({
        subject: text(`${template.kind}.subject`),
        greeting: text('greeting'),
        lines: [text(`${template.kind}.body`)],
        link: { url: template.link, label: text(`${template.kind}.link`) },
        footer: text(`${template.kind}.footer`),
      });
    case 'smtp_test':
      // The product's name, the same in every language.
      return render({ subject: text('smtp_test.subject'), lines: [text('smtp_test.body')], footer: 'Dorfteich' });
  }
}
