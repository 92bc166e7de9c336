import { documentToHtml } from '../../content-pipeline/index.ts';
import { generatePageDocument, loadSiteContext, encodeDocument } from '../../api/publicPages/publicDocumentGenerator.ts';
import { loadPublicPageData } from '../../api/publicPages/publicDocumentData.ts';
import { renderPublicDocumentHtml } from '../../api/publicPages/astroDocumentRenderer.ts';
import { pageModel } from '../../api/publicPages/publicDocumentGenerator.ts';
import { openBenchDatabase } from '../../scripts/bench/benchDatabase.ts';
import { seedPublicBench } from '../../scripts/bench/publicSeed.ts';
import { measureAlternating } from '../../scripts/bench/timing.ts';
const database = await openBenchDatabase();
try {
  const data = await seedPublicBench(database.sequelize, { guideWords: Number(process.env.WORDS ?? 1100), archivePages: 200, publicOrigin: 'https://teich.example.org' });
  const site = await loadSiteContext('https://x');
  const pageData = (await loadPublicPageData(database.sequelize, data.guide.pageId))!;
  const html = await renderPublicDocumentHtml(pageModel(site, pageData));
  console.log('html bytes', Buffer.byteLength(html), 'body html', pageData.bodyHtml.length, 'pipeline html', documentToHtml(data.guide.document).length);
  const t = await measureAlternating({
    render: async () => documentToHtml(data.guide.document),
    generate: () => generatePageDocument(database.sequelize, site, data.guide.pageId),
    load: () => loadPublicPageData(database.sequelize, data.guide.pageId),
    site: () => loadSiteContext('https://x'),
    astro: () => renderPublicDocumentHtml(pageModel(site, pageData)),
    encode: async () => encodeDocument(html),
  }, { warmup: 10, runs: Number(process.env.RUNS ?? 60) });
  for (const [k, v] of Object.entries(t)) console.log(k.padEnd(10), v.median.toFixed(2), v.p95.toFixed(2));
} finally { await database.close(); }
