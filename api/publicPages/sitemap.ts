/**
 * `/sitemap.xml` (the public pages of every pond, with `lastmod`) and `/robots.txt` (pointing
 * at it). Both list only what the `public` subject may read; the API's copies of the pages
 * (`/api/…`) are kept out of crawlers' way, the human URLs are the canonical ones.
 */
import type { Express } from 'express';
import { QueryTypes, type Sequelize } from 'sequelize';
import { ANONYMOUS } from '../policies/grantResolution.ts';
import { listReachablePonds } from '../policies/accessPolicy.ts';
import { escapeHtml } from '../html/escapeHtml.ts';
import { loadSiteContext } from './publicDocumentGenerator.ts';
import { loadPublicTree } from './publicDocumentData.ts';

/** The sitemap protocol's limit for one file. */
const MAX_URLS = 50_000;

export async function renderSitemap(sequelize: Sequelize, fallbackBaseUrl: string): Promise<string> {
  const site = await loadSiteContext(fallbackBaseUrl);
  const urls: string[] = [];
  const ponds = await listReachablePonds(sequelize, ANONYMOUS);
  for (const access of ponds) {
    if (urls.length >= MAX_URLS) break;
    const tree = await loadPublicTree(sequelize, access.data.pondId);
    if (!tree || tree.pages.length === 0) continue;
    const updated = await sequelize.query<{ id: string; updated_at: Date }>(`SELECT id, updated_at FROM pages WHERE pond_id = :pondId AND trashed_at IS NULL`, {
      replacements: { pondId: access.data.pondId },
      type: QueryTypes.SELECT,
    });
    const lastmod = new Map(updated.map((row) => [row.id, new Date(row.updated_at).toISOString()]));
    const pondUrl = `${site.baseUrl}/${encodeURIComponent(tree.pond.slug)}`;
    urls.push(`<url><loc>${escapeHtml(pondUrl)}</loc>${tree.lastModified ? `<lastmod>${tree.lastModified.toISOString()}</lastmod>` : ''}</url>`);
    for (const page of tree.pages) {
      if (urls.length >= MAX_URLS) break;
      urls.push(`<url><loc>${escapeHtml(`${pondUrl}/${encodeURIComponent(page.slug)}`)}</loc><lastmod>${lastmod.get(page.id)}</lastmod></url>`);
    }
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.join('\n')}\n</urlset>\n`;
}

export function mountSitemap(app: Express, sequelize: Sequelize, fallbackBaseUrl: string): void {
  app.get('/sitemap.xml', async (_req, res, next) => {
    try {
      const xml = await renderSitemap(sequelize, fallbackBaseUrl);
      res.setHeader('Cache-Control', 'public, max-age=300');
      res.type('application/xml').send(xml);
    } catch (error) {
      next(error);
    }
  });
  app.get('/robots.txt', async (_req, res, next) => {
    try {
      const site = await loadSiteContext(fallbackBaseUrl);
      res.setHeader('Cache-Control', 'public, max-age=3600');
      res.type('text/plain').send(`User-agent: *\nAllow: /\nDisallow: /api/\n\nSitemap: ${site.baseUrl}/sitemap.xml\n`);
    } catch (error) {
      next(error);
    }
  });
}
