/**
 * The Markdown ZIP export of a pond: one `<slug>.md` per live page the subject may read, flat
 * (the spec: the hierarchy is organizational only; a page's parent is named in its front
 * matter instead), and the files those pages claim under `attachments/`, the pages linking to
 * them relatively (exportAttachments.ts). Used by the internal route (api/routes/exportRoutes.ts) and the public
 * REST API's `export.zip`; the caller has checked that the subject sees the pond.
 *
 * Which pages: the policy module's page listing (`listVisiblePages`), never our own reading
 * of grants, so the export shows exactly what the page list shows. The body is the stored
 * Markdown cache (`page_contents`, written by every save), not a fresh render.
 *
 * Bounded memory for any pond size: the pages are listed and their Markdown loaded (and
 * their attachments verified) `EXPORT_BATCH_PAGES` at a time, and the next batch is loaded only once yazl has started on
 * the last entry of the previous one. Entries are lazy read streams, which yazl pipes into its
 * output with backpressure, so a slow client holds the producer back instead of the process
 * buffering the pond; at most about two batches of Markdown are in memory.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';
import { QueryTypes, type Sequelize } from 'sequelize';
import { ZipFile } from 'yazl';
import { timelineCursor, type TimelineCursor } from '../http/cursorCodec.ts';
import { notFound } from '../http/apiError.ts';
import type { Pond } from '../models/index.ts';
import { listVisiblePages } from '../pages/pageListing.ts';
import { subjectAccessTo, type AccessSubject } from '../policies/accessPolicy.ts';
import type { PageListItemView } from '../presenters/pagePresenter.ts';
import type { AppServices } from '../services.ts';
import { publicBaseUrl } from '../feeds/feedUrls.ts';
import type { MediaCaller } from '../files/mediaDelivery.ts';
import { attachmentStream, isCompressedFormat, loadClaimedFiles, relinkAttachments, verifiedAttachments, type ExportAttachment } from './exportAttachments.ts';

/** Pages listed and loaded per query. */
export const EXPORT_BATCH_PAGES = 200;

export const ZIP_MEDIA_TYPE = 'application/zip';

/** The download's file name: `<pondSlug>-markdown.zip`. */
export function pondMarkdownZipName(pond: Pick<Pond, 'slug'>): string {
  return `${pond.slug}-markdown.zip`;
}

/**
 * Streams the export to `res` (status 200, zip headers) and resolves once it is sent or the
 * client went away. Throws before anything is sent when the pond is gone; an error after the
 * first byte destroys the response (a truncated ZIP is detectably broken) and is rethrown.
 */
export async function streamPondMarkdownZip(services: AppServices, subject: AccessSubject, pond: Pond, res: Response): Promise<void> {
  const { sequelize } = services;
  const access = await subjectAccessTo(sequelize, subject, pond.id);
  if (!access) throw notFound();
  const labelNames = await loadLabelNames(sequelize, pond.id);
  const baseUrl = await publicBaseUrl(services);
  // A damaged file found on the way is audited under the exporting account.
  const caller: MediaCaller = { actor: subject.userId ? { id: subject.userId, name: null } : null, ip: res.req?.ip };
  const loadBatch = async (pages: readonly PageListItemView[]): Promise<Batch> => {
    const [contents, claimed] = await Promise.all([loadContents(sequelize, pond.id, pages), loadClaimedFiles(sequelize, pond.id, pages.map((page) => page.id))]);
    const attachments = new Map<string, ExportAttachment[]>();
    for (const [pageId, files] of claimed) attachments.set(pageId, await verifiedAttachments(services, files, caller));
    return { pages, contents, attachments, baseUrl, labelNames, dataDir: services.config.dataDir };
  };
  // The first batch before any header: a failure here still answers a JSON error.
  let listing = await listVisiblePages(sequelize, access, { limit: EXPORT_BATCH_PAGES });
  let batch = await loadBatch(listing.items);

  res.status(200);
  res.setHeader('Content-Type', ZIP_MEDIA_TYPE);
  res.setHeader('Content-Disposition', `attachment; filename="${pondMarkdownZipName(pond)}"`);
  // Private content: never kept by a shared cache, and not worth keeping by the browser.
  res.setHeader('Cache-Control', 'private, no-store');

  const zip = new ZipFile();
  // A PassThrough; its typings only promise the older ReadableStream interface.
  const output = zip.outputStream as Readable;
  const sent = pipeline(output, res);
  // Settles when the client is gone before the end: the producer must not wait on yazl then.
  const gone = sent.then(
    () => 'done' as const,
    () => 'gone' as const,
  );
  // An attachment that changed after its check, or an entry of the wrong length: the archive
  // breaks off (detectably truncated) instead of holding unchecked bytes.
  const fail = (error: Error) => output.destroy(error);
  zip.on('error', fail);
  try {
    for (;;) {
      const lastStarted = addBatch(zip, batch, fail);
      const cursor: TimelineCursor | null = listing.nextCursor ? timelineCursor.decode(listing.nextCursor) : null;
      if (!cursor) break;
      if ((await Promise.race([lastStarted, gone])) === 'gone') return;
      listing = await listVisiblePages(sequelize, access, { limit: EXPORT_BATCH_PAGES, cursor });
      batch = await loadBatch(listing.items);
    }
    zip.end();
  } catch (error) {
    output.destroy(error instanceof Error ? error : new Error(String(error)));
    await gone;
    throw error;
  }
  // A client that leaves mid-download is not an error of ours.
  await gone;
}

interface PageContent {
  markdown: string;
  parentSlug: string | null;
}

/** One batch of pages with what their entries need. */
interface Batch {
  pages: readonly PageListItemView[];
  contents: Map<string, PageContent>;
  /** Per page, its claimed files whose bytes passed the check. */
  attachments: Map<string, ExportAttachment[]>;
  baseUrl: string;
  labelNames: Map<string, string>;
  dataDir: string;
}

/**
 * Adds one batch as lazy entries (yazl asks for an entry's data when its turn comes): each page,
 * then its attachments. Resolves when yazl asks for the batch's last entry, i.e. when all
 * earlier entries are written.
 */
function addBatch(zip: ZipFile, batch: Batch, fail: (error: Error) => void): Promise<'started'> {
  return new Promise((resolve) => {
    const { pages, contents, attachments, labelNames } = batch;
    if (pages.length === 0) resolve('started');
    pages.forEach((page, index) => {
      const content = contents.get(page.id) ?? { markdown: '', parentSlug: null };
      const files = attachments.get(page.id) ?? [];
      const labels = page.labelIds.flatMap((id) => labelNames.get(id) ?? []).sort((a, b) => a.localeCompare(b));
      // The listing nulls a parent the subject may not read: its slug is not named either.
      const parent = page.parentId === null ? null : content.parentSlug;
      const markdown = relinkAttachments(content.markdown, files, batch.baseUrl);
      let bytes: Buffer | null = Buffer.from(frontMatter({ title: page.title, slug: page.slug, parent, labels, updated: page.updatedAt }) + markdown, 'utf8');
      const lastPage = index === pages.length - 1;
      zip.addReadStreamLazy(`${page.slug}.md`, { mtime: new Date(page.updatedAt), size: bytes.length }, (callback) => {
        if (lastPage && files.length === 0) resolve('started');
        callback(null, Readable.from([bytes!], { objectMode: false }));
        // yazl keeps every entry (and so this function) until the end for the central
        // directory: dropping the reference lets the page's bytes go once they are written.
        bytes = null;
      });
      files.forEach((file, fileIndex) => {
        const last = lastPage && fileIndex === files.length - 1;
        zip.addReadStreamLazy(file.entryName, { mtime: new Date(page.updatedAt), size: file.size, compress: !isCompressedFormat(file.extension) }, (callback) => {
          if (last) resolve('started');
          callback(null, attachmentStream(batch.dataDir, file, fail));
        });
      });
    });
  });
}

/** The batch's Markdown caches and parent slugs, by page id; one query. */
async function loadContents(sequelize: Sequelize, pondId: string, pages: readonly PageListItemView[]): Promise<Map<string, PageContent>> {
  if (pages.length === 0) return new Map();
  const rows = await sequelize.query<{ id: string; markdown: string; parent_slug: string | null }>(
    // A page whose first save has not happened yet still has its creation Markdown.
    `SELECT p.id, COALESCE(c.markdown, p.initial_markdown, '') AS markdown, parent.slug AS parent_slug
       FROM pages p
       LEFT JOIN page_contents c ON c.page_id = p.id
       LEFT JOIN pages parent ON parent.id = p.parent_id
      WHERE p.pond_id = :pondId AND p.id IN (:ids)`,
    { replacements: { pondId, ids: pages.map((page) => page.id) }, type: QueryTypes.SELECT },
  );
  return new Map(rows.map((row) => [row.id, { markdown: row.markdown, parentSlug: row.parent_slug }]));
}

/** Label names by id (labels are pond-level: whoever sees the pond sees them). */
async function loadLabelNames(sequelize: Sequelize, pondId: string): Promise<Map<string, string>> {
  const rows = await sequelize.query<{ id: string; name: string }>(`SELECT id, name FROM labels WHERE pond_id = :pondId`, { replacements: { pondId }, type: QueryTypes.SELECT });
  return new Map(rows.map((row) => [row.id, row.name]));
}

export interface FrontMatter {
  title: string;
  slug: string;
  parent: string | null;
  labels: string[];
  /** ISO 8601. */
  updated: string;
}

/** The YAML block in front of a page's Markdown, followed by an empty line. */
export function frontMatter(fields: FrontMatter): string {
  return [
    '---',
    `title: ${yamlString(fields.title)}`,
    `slug: ${yamlString(fields.slug)}`,
    `parent: ${fields.parent === null ? 'null' : yamlString(fields.parent)}`,
    `labels: [${fields.labels.map(yamlString).join(', ')}]`,
    `updated: ${yamlString(fields.updated)}`,
    '---',
    '',
    '',
  ].join('\n');
}

/**
 * A double-quoted YAML scalar. JSON's string syntax is YAML's, so JSON.stringify does the
 * quoting; the characters JSON leaves raw but YAML does not allow raw (DEL, C1 controls,
 * U+FFFE/U+FFFF) or that YAML 1.1 readers take for line breaks (NEL, U+2028/U+2029) are escaped.
 */
export function yamlString(value: string): string {
  return JSON.stringify(value).replace(/[\u007f-\u009f\u2028\u2029\ufffe\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
