/**
 * Localized mail texts (de/en). Each template yields a subject, a plain-text body and an
 * HTML body; every interpolated value is HTML-escaped in the HTML part.
 */
import { escapeHtml } from '../html/escapeHtml.ts';
import type { Locale } from '../i18n/locale.ts';

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
  const de = locale === 'de';
  switch (template.kind) {
    case 'verify_email':
      return render({
        subject: de ? `Bitte bestätige deine E-Mail-Adresse für ${template.instanceName}` : `Please confirm your e-mail address for ${template.instanceName}`,
        greeting: de ? `Hallo ${template.displayName},` : `Hello ${template.displayName},`,
        lines: [de ? 'bitte bestätige deine E-Mail-Adresse, damit du dich anmelden kannst. Der Link ist 24 Stunden gültig.' : 'please confirm your e-mail address so you can sign in. The link is valid for 24 hours.'],
        link: { url: template.link, label: de ? 'E-Mail-Adresse bestätigen' : 'Confirm e-mail address' },
        footer: de ? 'Wenn du dich nicht registriert hast, kannst du diese E-Mail ignorieren.' : 'If you did not sign up, you can ignore this e-mail.',
      });
    case 'reset_password':
      return render({
        subject: de ? `Passwort zurücksetzen für ${template.instanceName}` : `Reset your password for ${template.instanceName}`,
        greeting: de ? `Hallo ${template.displayName},` : `Hello ${template.displayName},`,
        lines: [de ? 'mit diesem Link kannst du ein neues Passwort festlegen. Er ist eine Stunde gültig; danach bist du überall abgemeldet.' : 'use this link to choose a new password. It is valid for one hour; afterwards you are signed out everywhere.'],
        link: { url: template.link, label: de ? 'Neues Passwort festlegen' : 'Choose a new password' },
        footer: de ? 'Wenn du das nicht angefordert hast, kannst du diese E-Mail ignorieren; dein Passwort bleibt unverändert.' : 'If you did not ask for this, ignore this e-mail; your password stays unchanged.',
      });
    case 'smtp_test':
      return render({
        subject: de ? `Test-E-Mail von ${template.instanceName}` : `Test e-mail from ${template.instanceName}`,
        lines: [de ? 'Der E-Mail-Versand funktioniert.' : 'Sending e-mail works.'],
        footer: 'Dorfteich',
      });
  }
}
