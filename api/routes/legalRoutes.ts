/**
 * Legal pages (imprint, privacy) as self-contained HTML, reachable even while setup is
 * pending. The texts come from `legal.imprint` / `legal.privacy` as Markdown, rendered by the
 * content pipeline (sanitized; raw HTML shows as text).
 */
import { documentToHtml, markdownToDocument } from '../../content-pipeline/index.ts';
import { escapeHtml } from '../html/escapeHtml.ts';
import { z } from 'zod';
import { defineRoute, type AnyRoute } from '../http/routeTable.ts';
import { apiText } from '../i18n/apiTexts.ts';
import type { Locale } from '../i18n/locale.ts';
import { getSetting } from '../settings/instanceSettings.ts';

export function renderLegalPage(input: { kind: 'imprint' | 'privacy'; text: string; locale: Locale; instanceName: string }): string {
  const title = apiText(`legal.${input.kind}`, input.locale);
  const body = input.text.trim() ? documentToHtml(markdownToDocument(input.text)) : `<p class="notice">${escapeHtml(apiText('legal.notConfigured', input.locale))}</p>`;
  return `<!doctype html>
<html lang="${input.locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} – ${escapeHtml(input.instanceName)}</title>
<style>body{font-family:system-ui,sans-serif;line-height:1.6;color:#1d2433;max-width:44rem;margin:2rem auto;padding:0 1rem}h1{font-size:1.8rem}.notice{color:#555;font-style:italic}</style>
</head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
${body}
</main>
</body>
</html>
`;
}

export const legalRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/legal/:kind',
    access: { kind: 'public' },
    setupExempt: true,
    params: z.object({ kind: z.enum(['imprint', 'privacy']) }),
    handler: async ({ params, res, locale }) => {
      const text = await getSetting(params.kind === 'imprint' ? 'legal.imprint' : 'legal.privacy');
      const html = renderLegalPage({ kind: params.kind, text, locale: await locale(), instanceName: await getSetting('instance.name') });
      res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'");
      res.setHeader('Vary', 'Accept-Language');
      res.type('html').send(html);
    },
  }),
];
