/**
 * The text a missing page's links are written with (`[[giessplan|Gießplan]]` → `Gießplan`):
 * the page's natural title, since a slug cannot carry it (`ß` is spelled out). The link index
 * keeps only the slug, so the text is read from the referrers' rendered bodies, where each
 * wikilink stands as documentToHtml wrote it (content-pipeline/html/unavailableWikilinks.ts);
 * Postgres cuts out the one link's text, so no body travels. A few referrers per target are
 * asked, in the listed order (by title); the first text that is more than its slug wins.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { wikilinkTextFromHtml } from '../../content-pipeline/index.ts';
import type { PhantomLinkView } from '../presenters/linkPresenter.ts';

const REFERRERS_ASKED = 3;
/** Only slug-shaped targets are looked for: the key goes into a pattern. */
const SLUG_SHAPE = /^[a-z0-9-]+$/;

export async function withLinkTexts(sequelize: Sequelize, items: Omit<PhantomLinkView, 'linkText'>[]): Promise<PhantomLinkView[]> {
  const keys: string[] = [];
  const pageIds: string[] = [];
  for (const item of items) {
    if (!SLUG_SHAPE.test(item.targetSlug)) continue;
    for (const referrer of item.referrers.slice(0, REFERRERS_ASKED)) {
      keys.push(item.targetSlug);
      pageIds.push(referrer.page.id);
    }
  }
  const rows =
    keys.length === 0
      ? []
      : await sequelize.query<{ key: string; page_id: string; text: string | null }>(
          `SELECT r.key, r.page_id,
                  (regexp_match(c.html, '<a href="[^"]*" data-slug="' || r.key || '" class="dt-wikilink">([^<]*)</a>', 'i'))[1] AS text
             FROM unnest(CAST(:keys AS text[]), CAST(:pageIds AS uuid[])) AS r (key, page_id)
             JOIN page_contents c ON c.page_id = r.page_id`,
          { replacements: { keys: `{${keys.join(',')}}`, pageIds: `{${pageIds.join(',')}}` }, type: QueryTypes.SELECT },
        );
  const textOf = new Map(rows.map((row) => [`${row.key} ${row.page_id}`, row.text]));
  return items.map((item) => {
    let linkText: string | null = null;
    for (const referrer of item.referrers.slice(0, REFERRERS_ASKED)) {
      const serialized = textOf.get(`${item.targetSlug} ${referrer.page.id}`);
      const text = serialized ? wikilinkTextFromHtml(serialized).trim() : '';
      if (text !== '' && text.toLowerCase() !== item.targetSlug) {
        linkText = text;
        break;
      }
    }
    return { targetSlug: item.targetSlug, linkText, referrers: item.referrers };
  });
}
