/**
 * The read view for embeds: `GET /read/:pondSlug/:pageSlug` answers the rendered body of any
 * page the signed-in caller may read (spec: Public and read views), transclusions expanded as
 * the caller may see them (same pond, readable, depth ≤ 2; one without text says so in the
 * caller's language), plugin blocks in their static form. Anything the caller may not read is
 * a 404, like a missing page.
 */
import { z } from 'zod';
import { QueryTypes } from 'sequelize';
import { expandPlaceholders, MAX_TRANSCLUSION_DEPTH, type TransclusionTarget } from '../../content-pipeline/index.ts';
import { notFound } from '../http/apiError.ts';
import { apiText } from '../i18n/apiTexts.ts';
import { renderReadsOf } from '../http/inProcessFetch.ts';
import { defineRoute, pageOfRender, type AnyRoute } from '../http/routeTable.ts';
import { authorizePage, permittedPageIds } from '../policies/accessPolicy.ts';
import { pluginBlockStaticForm } from '../publicPages/publicPluginSeam.ts';
import { slugSchema } from '../ponds/slugs.ts';

interface TargetRow {
  id: string;
  pond_id: string;
  slug: string;
  title: string;
  trashed_at: Date | null;
  html: string;
  targets: string[];
}

export const publicReadRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/read/:pondSlug/:pageSlug',
    access: { kind: 'session' },
    params: z.object({ pondSlug: slugSchema, pageSlug: slugSchema }),
    handler: async ({ req, params, subject, services, res, locale }) => {
      const { sequelize } = services;
      // The page, its body and the slugs it transcludes in one statement; nothing of it leaves before the access check below.
      const [found] = await sequelize.query<{ page_id: string; html: string | null; targets: string[] }>(
        `SELECT p.id AS page_id, c.html, ARRAY(SELECT target_slug FROM page_transclusions WHERE source_page_id = p.id) AS targets
           FROM ponds po JOIN pages p ON p.pond_id = po.id LEFT JOIN page_contents c ON c.page_id = p.id
          WHERE lower(po.slug) = lower(:pondSlug) AND lower(p.slug) = lower(:pageSlug) AND po.trashed_at IS NULL AND p.trashed_at IS NULL`,
        { replacements: { pondSlug: params.pondSlug, pageSlug: params.pageSlug }, type: QueryTypes.SELECT },
      );
      if (!found) throw notFound();
      const render = renderReadsOf(req.socket);
      const { page } = await authorizePage(sequelize, subject, found.page_id, 'read', { loadPage: render ? (id) => pageOfRender(render, id) : undefined });
      // The caller's readable transclusion targets, level by level.
      const targets = new Map<string, TransclusionTarget>();
      let slugs = found.targets;
      for (let depth = 1; depth <= MAX_TRANSCLUSION_DEPTH && slugs.length > 0; depth++) {
        const rows = await sequelize.query<TargetRow>(
          `SELECT p.id, p.pond_id, p.slug, p.title, p.trashed_at, c.html,
                  COALESCE((SELECT array_agg(t.target_slug) FROM page_transclusions t WHERE t.source_page_id = p.id), '{}') AS targets
             FROM pages p JOIN page_contents c ON c.page_id = p.id
            WHERE p.pond_id = :pondId AND lower(p.slug) IN (:slugs) AND p.trashed_at IS NULL`,
          { replacements: { pondId: page.pondId, slugs }, type: QueryTypes.SELECT },
        );
        const readable = await permittedPageIds(sequelize, subject, rows.map((row) => ({ id: row.id, pondId: row.pond_id, trashedAt: row.trashed_at })));
        slugs = [];
        for (const row of rows) {
          if (!readable.has(row.id) || targets.has(row.slug.toLowerCase())) continue;
          targets.set(row.slug.toLowerCase(), { html: row.html, title: row.title });
          slugs.push(...row.targets);
        }
      }
      // The caller's language only matters for a transcluded page without text (its note).
      const emptyNote = targets.size > 0 ? apiText('transclusion.empty', await locale()) : undefined;
      const html = expandPlaceholders(found.html ?? '', {
        selfSlug: page.slug.toLowerCase(),
        resolveTransclusion: (slug) => targets.get(slug.toLowerCase()) ?? null,
        resolvePluginBlock: (block) => pluginBlockStaticForm(page.id, block),
        emptyNote,
      });
      res.setHeader('Cache-Control', 'private, no-store');
      res.type('html').send(html);
    },
  }),
];
