/**
 * The unsubscribe link of digest mails (spec, Authentication 6). `GET /unsubscribe?token=`
 * shows a confirmation page with one button; `POST /unsubscribe` sets the account's
 * `digestFrequency` to `off`. The token (api/auth/unsubscribeTokens.ts) is the only credential:
 * no session is read and no cookie is ever set (`skipAuthentication`, which also leaves out the
 * CSRF origin check: there is no ambient credential to forge with, and a mail provider's
 * RFC 8058 one-click POST comes from wherever it comes from).
 *
 * The token comes from the form (`token`) or the query: the `List-Unsubscribe` header names
 * the link itself, and one-click posts `List-Unsubscribe=One-Click` to it, answered with 204.
 * A browser (it asks for HTML) gets pages; any other client gets the JSON error envelope.
 */
import type { Request } from 'express';
import { z } from 'zod';
import { verifyUnsubscribeToken } from '../auth/unsubscribeTokens.ts';
import { ApiError } from '../http/apiError.ts';
import { defineRoute, type AnyRoute } from '../http/routeTable.ts';
import { isLocale, localeFromAcceptLanguage, type Locale } from '../i18n/locale.ts';
import { User } from '../models/index.ts';
import { sendUnsubscribePage, type UnsubscribePage } from '../notifications/unsubscribePage.ts';
import type { AppServices } from '../services.ts';
import { getSetting } from '../settings/instanceSettings.ts';

const token = z.string().max(512).optional();
const tokenQuery = z.object({ token });
/** Not strict: a mail provider may post fields of its own besides the one-click marker. */
const unsubscribeBody = z.object({ token, 'List-Unsubscribe': z.string().max(64).optional() });

function wantsHtml(req: Request): boolean {
  return req.accepts(['json', 'html']) === 'html';
}

/** The account's language, else the browser's, else the instance default. */
async function pageLocale(req: Request, user: User | null): Promise<Locale> {
  if (isLocale(user?.locale)) return user.locale;
  return localeFromAcceptLanguage(req.headers['accept-language']) ?? (await getSetting('instance.defaultLocale'));
}

/** The account a valid token names; null for a forged, altered or foreign token. */
async function tokenUser(services: AppServices, value: string | undefined): Promise<User | null> {
  const userId = verifyUnsubscribeToken(services.config.sessionSecret, value);
  return userId ? User.findByPk(userId) : null;
}

async function answerPage(req: Request, res: Parameters<typeof sendUnsubscribePage>[0], user: User | null, page: UnsubscribePage, status?: number): Promise<void> {
  const [locale, instanceName] = await Promise.all([pageLocale(req, user), getSetting('instance.name')]);
  sendUnsubscribePage(res, page, { locale, instanceName, ...(status === undefined ? {} : { status }) });
}

export const unsubscribeRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/unsubscribe',
    access: { kind: 'public' },
    skipAuthentication: true,
    query: tokenQuery,
    handler: async ({ req, res, query, services }) => {
      const user = await tokenUser(services, query.token);
      if (!user) {
        if (!wantsHtml(req)) throw new ApiError('token_invalid');
        return answerPage(req, res, null, { kind: 'invalid' }, 400);
      }
      await answerPage(req, res, user, { kind: 'confirm', token: query.token!, displayName: user.displayName });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/unsubscribe',
    access: { kind: 'public' },
    skipAuthentication: true,
    formBody: true,
    query: tokenQuery,
    body: unsubscribeBody,
    handler: async ({ req, res, query, body, services }) => {
      const user = await tokenUser(services, body.token ?? query.token);
      const oneClick = body['List-Unsubscribe'] === 'One-Click';
      if (!user) {
        if (oneClick || !wantsHtml(req)) throw new ApiError('token_invalid');
        return answerPage(req, res, null, { kind: 'invalid' }, 400);
      }
      // Idempotent: a second click (or the provider retrying) changes nothing.
      await User.update({ digestFrequency: 'off' }, { where: { id: user.id } });
      if (oneClick || !wantsHtml(req)) return { status: 204 };
      await answerPage(req, res, user, { kind: 'done' });
    },
  }),
];
