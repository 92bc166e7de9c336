/**
 * (d) of the public bench: generating one page's document against the content pipeline's
 * HTML render of the same page, with the parts of a generation timed alongside (data load,
 * Astro layout render, encoding) to show where the time goes, and the compression of the two
 * variants, which their first requests do since issue 43. Runs in the API process (see
 * publicBenchServer.ts), the process that generates documents on demand, so its queries go to
 * a Postgres on the other core as they would in production.
 */
import type { Sequelize } from 'sequelize';
import { documentToHtml, markdownToDocument } from '../../content-pipeline/index.ts';
import { renderDocument } from '../../api/documents/derivedData.ts';
import { renderPublicDocumentHtml } from '../../api/publicPages/astroDocumentRenderer.ts';
import { loadPublicPageData } from '../../api/publicPages/publicDocumentData.ts';
import { compressDocument, encodeDocument, generatePageDocument, loadSiteContext, pageModel } from '../../api/publicPages/publicDocumentGenerator.ts';
import { regeneratePage } from '../../api/publicPages/publicDocumentService.ts';
import { measureAlternating, type Timing } from './timing.ts';

export type GenerationTimings = Record<'render' | 'saveRender' | 'generate' | 'regenerate' | 'load' | 'astro' | 'encode' | 'compress', Timing> & {
  /** CPU time of one generation and of one render (user + system, every thread of the process): means, ms. */
  cpu: { generate: number; render: number };
};

/** Mean CPU time (user + system, all threads) of `task`, in milliseconds. */
async function cpuPerRun(task: () => Promise<unknown>, runs: number): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < runs; i += 1) await task();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / runs;
}

export async function measureGeneration(sequelize: Sequelize, input: { pageId: string; markdown: string; fallbackBaseUrl: string; runs: number; warmup: number }): Promise<GenerationTimings> {
  // The page's document as every save has it: parsed from the same Markdown.
  const document = markdownToDocument(input.markdown);
  const site = await loadSiteContext(input.fallbackBaseUrl);
  const context = { sequelize, fallbackBaseUrl: input.fallbackBaseUrl };
  const pageData = await loadPublicPageData(sequelize, input.pageId);
  if (!pageData) throw new Error(`page ${input.pageId} is not public`);
  const html = await renderPublicDocumentHtml(pageModel(site, pageData));
  const bytes = Buffer.from(html, 'utf8');
  const timings = await measureAlternating(
    {
      // The baseline: the pipeline's HTML render of the page's document.
      render: async () => documentToHtml(document),
      // What a save renders: HTML, Markdown and the extraction.
      saveRender: async () => renderDocument(document),
      // The subject: load, layout, ETag (the compressed variants are made at their first request).
      generate: () => generatePageDocument(sequelize, site, input.pageId),
      // The same with the site settings, the transaction and lock, and the store (of unchanged bytes).
      regenerate: () => regeneratePage(context, input.pageId),
      load: () => loadPublicPageData(sequelize, input.pageId),
      astro: () => renderPublicDocumentHtml(pageModel(site, pageData)),
      encode: async () => encodeDocument(html),
      // What the first br and the first gzip request of a document add (publicHotPath.ts), once each.
      compress: async () => [compressDocument(bytes, 'br'), compressDocument(bytes, 'gzip')],
    },
    { warmup: input.warmup, runs: input.runs },
  );
  const cpu = {
    generate: await cpuPerRun(() => generatePageDocument(sequelize, site, input.pageId), input.runs),
    render: await cpuPerRun(async () => documentToHtml(document), input.runs),
  };
  return { ...timings, cpu };
}
