/**
 * The attachments of a pond Markdown ZIP: the files the exported pages claim, stored under
 * `attachments/` in the archive, and the pages' links to them (`/api/v1/media/<id>`) rewritten
 * to that relative path, so the archive reads offline and in any Markdown tool.
 *
 * Only bytes that are still the uploaded ones go in: every file is re-hashed against its stored
 * SHA-256 before the batch's entries are added (the media route's own check, which audits a
 * mismatch), and a missing or damaged file is left out, its link left as it was. The bytes are
 * then streamed into the archive and hashed again on the way: a file changed in between fails
 * the download (a truncated ZIP) rather than putting unchecked bytes into it.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Transform, type Readable } from 'node:stream';
import { QueryTypes, type Sequelize } from 'sequelize';
import { ApiError } from '../http/apiError.ts';
import { storedFilePath } from '../files/fileStore.ts';
import { openVerifiedFile, type MediaCaller, type MediaFile } from '../files/mediaDelivery.ts';
import { slugify } from '../ponds/slugs.ts';
import type { AppServices } from '../services.ts';

export const ATTACHMENTS_FOLDER = 'attachments';

export interface ExportAttachment extends MediaFile {
  sha256: string;
  size: number;
  /** The entry's path in the archive: `attachments/<id>-<name>.<extension>`. */
  entryName: string;
}

/** Formats that are compressed already: stored as they are, deflating them costs CPU for nothing. */
const COMPRESSED = /^(png|jpe?g|gif|webp|avif|pdf|zip|gz|docx|xlsx|pptx|odt|ods|odp|mp3|mp4|m4a|webm|ogg)$/;

/** `attachments/<id>-<name as slug>.<extension>`: unique (the id), readable, safe in any link and file system. */
export function attachmentEntryName(file: { id: string; name: string; extension: string }): string {
  const dot = file.name.lastIndexOf('.');
  const stem = slugify(dot > 0 ? file.name.slice(0, dot) : file.name).slice(0, 60).replace(/-+$/, '');
  return `${ATTACHMENTS_FOLDER}/${file.id}${stem ? `-${stem}` : ''}.${file.extension}`;
}

export function isCompressedFormat(extension: string): boolean {
  return COMPRESSED.test(extension);
}

/** The files claimed by `pageIds` (in the pond), by page id, oldest first. */
export async function loadClaimedFiles(sequelize: Sequelize, pondId: string, pageIds: readonly string[]): Promise<Map<string, MediaFile[]>> {
  const byPage = new Map<string, MediaFile[]>();
  if (pageIds.length === 0) return byPage;
  const rows = await sequelize.query<MediaFile>(
    `SELECT f.id, f.pond_id AS "pondId", f.page_id AS "pageId", f.extension, f.content_type AS "contentType", f.name, f.sha256
       FROM files f WHERE f.pond_id = :pondId AND f.page_id IN (:pageIds) ORDER BY f.created_at, f.id`,
    { replacements: { pondId, pageIds: [...pageIds] }, type: QueryTypes.SELECT },
  );
  for (const row of rows) byPage.set(row.pageId!, [...(byPage.get(row.pageId!) ?? []), row]);
  return byPage;
}

/**
 * The files whose stored bytes match their hash; the others are left out (a mismatch is audited
 * and logged by the media check, a missing file too). One file at a time: bounded memory.
 */
export async function verifiedAttachments(services: AppServices, files: readonly MediaFile[], caller: MediaCaller): Promise<ExportAttachment[]> {
  const verified: ExportAttachment[] = [];
  for (const file of files) {
    try {
      const checked = await openVerifiedFile(services, file, caller);
      await checked.handle.close();
      verified.push({ ...file, sha256: checked.sha256, size: checked.size, entryName: attachmentEntryName(file) });
    } catch (error) {
      if (!(error instanceof ApiError && error.code === 'attachment_integrity_failure')) {
        services.logger.warn({ fileId: file.id, err: error }, 'attachment left out of the Markdown export: unreadable');
      }
    }
  }
  return verified;
}

const MEDIA_LINK = /\]\((<?)((?:https?:\/\/[^\s/()<>]+)?)\/api\/v1\/media\/([0-9a-fA-F-]{36})(?=[\s)>])/g;

/**
 * The page's Markdown with every link or image pointing at one of `attachments` (as a path, or
 * an absolute URL of this instance) pointing at its entry instead. Pages lie at the top of the
 * archive, so the entry name is the relative link. Other media links stay as they are.
 */
export function relinkAttachments(markdown: string, attachments: readonly ExportAttachment[], baseUrl: string): string {
  if (attachments.length === 0 || !markdown.includes('/api/v1/media/')) return markdown;
  const entries = new Map(attachments.map((file) => [file.id.toLowerCase(), file.entryName]));
  const origin = baseUrl.replace(/\/+$/, '').toLowerCase();
  return markdown.replace(MEDIA_LINK, (link, angle: string, host: string, id: string) => {
    const entry = entries.get(id.toLowerCase());
    if (!entry || (host !== '' && host.toLowerCase() !== origin)) return link;
    return `](${angle}${entry}`;
  });
}

/**
 * The attachment's bytes for the archive, hashed on the way: when they no longer match what
 * was verified, `onDamaged` is called (the export then fails) and the stream ends short.
 */
export function attachmentStream(dataDir: string, file: ExportAttachment, onDamaged: (error: Error) => void): Readable {
  const hash = createHash('sha256');
  let size = 0;
  let failed = false;
  const damaged = (error: Error) => {
    if (failed) return;
    failed = true;
    onDamaged(error);
  };
  const checked = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      size += chunk.length;
      callback(null, chunk);
    },
    flush(callback) {
      const sha256 = hash.digest('hex');
      if (sha256 === file.sha256 && size === file.size) return callback();
      // Not an error of this stream: yazl does not listen for one; the export fails instead.
      damaged(new Error(`attachment ${file.id} changed while it was exported`));
      callback();
    },
  });
  const source = createReadStream(storedFilePath(dataDir, file.id));
  source.on('error', (error) => {
    damaged(error);
    checked.end();
  });
  return source.pipe(checked);
}
