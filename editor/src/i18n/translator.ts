/**
 * Looks up client texts. Both catalogs ship to the browser (a few KB) so an island
 * needs only the locale the page was rendered in.
 */
import type { Locale } from '../../../api/i18n/locale.ts';
import { messagesDe } from './messages.de.ts';
import { messagesEn, type MessageKey } from './messages.en.ts';

export type { Locale, MessageKey };
export type MessageParams = Record<string, string | number>;
export type Translate = (key: MessageKey, params?: MessageParams) => string;

const catalogs: Record<Locale, Record<MessageKey, string>> = { de: messagesDe, en: messagesEn };

export function createTranslator(locale: Locale): Translate {
  const catalog = catalogs[locale];
  return (key, params) => {
    const text = catalog[key];
    if (!params) return text;
    return text.replace(/\{(\w+)\}/g, (placeholder, name: string) =>
      name in params ? String(params[name]) : placeholder,
    );
  };
}
