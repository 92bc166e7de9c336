import { brotliCompressSync, gzipSync, constants as z } from 'node:zlib';
import { createHash } from 'node:crypto';
import { documentToHtml, expandPlaceholders } from '../../content-pipeline/index.ts';
import { loadPublicPageData } from '../../api/publicPages/publicDocumentData.ts';
import { loadSiteContext, pageModel } from '../../api/publicPages/publicDocumentGenerator.ts';
import { renderPublicDocumentHtml, assertStaticDocument } from '../../api/publicPages/astroDocumentRenderer.ts';
import { openBenchDatabase } from './benchDatabase.ts';
import { seedPublicBench } from './publicSeed.ts';
import { measureAlternating } from './timing.ts';
const database = await openBenchDatabase();
try {
  const data = await seedPublicBench(database.sequelize, { guideWords: 750, archivePages: 200, publicOrigin: 'https://teich.example.org' });
  const site = await loadSiteContext('https://x');
  const pd = (await loadPublicPageData(database.sequelize, data.guide.pageId))!;
  const body = documentToHtml(data.guide.document);
  const expanded = expandPlaceholders(body, { resolveTransclusion: () => null });
  console.log('roundtrip identical', expanded === body, body.length, expanded.length, 'transclusion placeholders', (body.match(/data-dt-transclusion/g) ?? []).length);
  const html = await renderPublicDocumentHtml(pageModel(site, pd));
  const bytes = Buffer.from(html);
  const t = await measureAlternating({
    render: async () => documentToHtml(data.guide.document),
    expand: async () => expandPlaceholders(body, { resolveTransclusion: () => null }),
    astro: () => renderPublicDocumentHtml(pageModel(site, pd)),
    assert: async () => assertStaticDocument(html),
    gzip6: async () => gzipSync(bytes, { level: 6 }),
    br5: async () => brotliCompressSync(bytes, { params: { [z.BROTLI_PARAM_QUALITY]: 5, [z.BROTLI_PARAM_MODE]: z.BROTLI_MODE_TEXT, [z.BROTLI_PARAM_SIZE_HINT]: bytes.length } }),
    br4: async () => brotliCompressSync(bytes, { params: { [z.BROTLI_PARAM_QUALITY]: 4, [z.BROTLI_PARAM_MODE]: z.BROTLI_MODE_TEXT, [z.BROTLI_PARAM_SIZE_HINT]: bytes.length } }),
    sha: async () => createHash('sha256').update(bytes).digest('base64url'),
    dtf: async () => new Intl.DateTimeFormat('de', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' }).format(new Date()),
  }, { warmup: 20, runs: 100 });
  for (const [k, v] of Object.entries(t)) console.log(k.padEnd(10), v.median.toFixed(3), v.p95.toFixed(3));
  console.log('sizes gzip', gzipSync(bytes).length, 'br5', brotliCompressSync(bytes, { params: { [z.BROTLI_PARAM_QUALITY]: 5 } }).length, 'br4', brotliCompressSync(bytes, { params: { [z.BROTLI_PARAM_QUALITY]: 4 } }).length);
} finally { await database.close(); }
