/**
 * `GET /api/v1/media/:fileId` (spec: Files and media; Errors; Audit): who may fetch an
 * attachment, the check that its stored bytes are still the uploaded ones, and the answer.
 *
 * Order: access (404 for unreadable and unknown alike) → `If-None-Match` (304, no bytes read)
 * → integrity (the whole file re-hashed before any byte is sent, ranges included; fails
 * closed with `attachment_integrity_failure`) → range → headers → stream.
 *
 * The file is opened once and hashed and streamed through the same descriptor, so a file
 * swapped on disk (renamed over) between the check and the send cannot be served unchecked.
 * A file this process verified before and that has not changed since (same device, inode,
 * size, mtime and ctime: verifiedFileMemory.ts) is not hashed again.
 */
import { createHash } from 'node:crypto';
import { open, type FileHandle } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import type { Request, Response } from 'express';
import { QueryTypes, type Sequelize } from 'sequelize';
import { recordAudit, type AuditActor } from '../audit/auditLog.ts';
import { ApiError, notFound } from '../http/apiError.ts';
import type { Logger } from '../logger.ts';
// The request id (`req.id`) is declared with the request logger's augmentation of Express' Request.
import type {} from '../http/requestLogging.ts';
import { isUuid, subjectAccessTo, type AccessSubject } from '../policies/accessPolicy.ts';
import type { AppServices } from '../services.ts';
import { entityTagOf, ifNoneMatchHits, requestedByteRange } from './byteRange.ts';
import { storedFilePath } from './fileStore.ts';
import { contentDispositionFor, servedContentType, type MediaFileNaming } from './mediaDisposition.ts';
import { countHash, isKnownVerified, rememberVerified, sameFileState } from './verifiedFileMemory.ts';

/**
 * Nothing in a served file may load or run anything, and opened as a document it is a
 * sandboxed, unique origin (an HTML or SVG file cannot reach our cookies or API). The global
 * policy (api/http/securityHeaders.ts) runs before the route, so this one replaces it; it
 * keeps that policy's `frame-ancestors 'none'`.
 */
export const MEDIA_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'; sandbox";

/** Who may read it depends on the caller: a shared cache must not keep it, the browser must revalidate. */
const MEDIA_CACHE_CONTROL = 'private, no-cache';

export interface MediaFile extends MediaFileNaming {
  pondId: string;
  /** The claiming page, else the page the upload was made to. */
  pageId: string | null;
  /** Hex SHA-256 of the bytes; null for rows that pre-date hashing, until backfilled here. */
  sha256: string | null;
}

/**
 * Stored bytes that matched their hash, open for sending. The caller closes `handle` once the
 * answer is done (closing twice is harmless: a download the client abandoned closed it already).
 */
export interface VerifiedFile {
  handle: FileHandle;
  size: number;
  sha256: string;
  /** A small file's bytes as hashed: sent from memory instead of read a second time. */
  bytes: Buffer | null;
}

/** Who asked, for the audit entry of a failed check. */
export interface MediaCaller {
  actor: AuditActor | null;
  ip: string | undefined;
}

/**
 * The file if `subject` may read the page it belongs to. A malformed id, an unknown file, a
 * file of no page, an unreadable page and a trashed page all answer the same 404, so the
 * answer never tells whether a file exists (a trashed page's `page_trashed` would).
 */
export async function findReadableMediaFile(sequelize: Sequelize, subject: AccessSubject, fileId: string): Promise<MediaFile> {
  if (!isUuid(fileId)) throw notFound();
  // The file with the state of its page in one read; the verdict is the policy module's.
  const [file] = await sequelize.query<MediaFile & { pageTrashedAt: Date | null }>(
    `SELECT f.id, f.pond_id AS "pondId", p.id AS "pageId", p.trashed_at AS "pageTrashedAt", f.extension,
            f.content_type AS "contentType", f.name, f.sha256
       FROM files f JOIN pages p ON p.id = coalesce(f.page_id, f.upload_page_id)
      WHERE f.id = $1`,
    { bind: [fileId], type: QueryTypes.SELECT },
  );
  if (!file?.pageId) throw notFound();
  const access = await subjectAccessTo(sequelize, subject, file.pondId);
  if (!access || !access.page({ id: file.pageId, trashedAt: file.pageTrashedAt }, 'read').allowed || file.pageTrashedAt) throw notFound();
  const { pageTrashedAt: _trashed, ...served } = file;
  return served;
}

/** 304 when the client's copy is current; true when answered. Access was checked already. */
export function answerNotModified(req: Request, res: Response, sha256: string | null): boolean {
  if (sha256 === null) return false;
  const etag = entityTagOf(sha256);
  if (!ifNoneMatchHits(req.headers['if-none-match'], etag)) return false;
  res.status(304);
  res.setHeader('ETag', etag);
  res.setHeader('Cache-Control', MEDIA_CACHE_CONTROL);
  res.end();
  return true;
}

/**
 * Opens the stored bytes and re-hashes all of them (streamed, never buffered whole). A
 * mismatch, or no bytes at all, is audited and refused before anything is sent. A row without
 * a hash gets the computed one stored and is served.
 */
export async function openVerifiedFile(services: AppServices, file: MediaFile, caller: MediaCaller): Promise<VerifiedFile> {
  const handle = await openStoredFile(services.config.dataDir, file.id);
  if (!handle) return refuseDamagedFile(services, file, { expected: file.sha256, actual: null }, caller);
  try {
    const before = await handle.stat();
    // Unchanged since it last matched: streamed from the descriptor (bytes null), not hashed again.
    if (isKnownVerified(file.id, before, file.sha256)) return { handle, size: before.size, sha256: file.sha256!, bytes: null };
    countHash();
    const { sha256, size, bytes } = before.size <= IN_MEMORY_MAX_BYTES ? await hashSmallFile(handle, before.size) : { ...(await hashWholeFile(handle)), bytes: null };
    const expected = file.sha256 ?? (await backfillHash(services.sequelize, file.id, sha256));
    if (expected !== sha256) return await refuseDamagedFile(services, file, { expected, actual: sha256 }, caller);
    // Remembered only when nothing changed while it was read: the hash is then that state's.
    const after = await handle.stat();
    if (size === before.size && sameFileState(before, after)) rememberVerified(file.id, before, sha256);
    return { handle, size, sha256, bytes };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

async function openStoredFile(dataDir: string, fileId: string): Promise<FileHandle | null> {
  try {
    return await open(storedFilePath(dataDir, fileId), 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * Files up to this size (most images) are read once: hashed in memory and sent from there. A
 * larger file is hashed in chunks and streamed, so a download never holds more than this.
 */
const IN_MEMORY_MAX_BYTES = 2 * 1024 * 1024;

/** Reads a small file whole through `handle` (it may have changed size since the stat: read to its end). */
async function hashSmallFile(handle: FileHandle, statSize: number): Promise<{ sha256: string; size: number; bytes: Buffer | null }> {
  const bytes = Buffer.allocUnsafe(statSize + 1);
  let size = 0;
  for (;;) {
    const { bytesRead } = await handle.read(bytes, size, bytes.length - size, size);
    size += bytesRead;
    if (bytesRead === 0) break;
    // Grown since the stat: not small after all, hash it as any other.
    if (size === bytes.length) return { ...(await hashWholeFile(handle)), bytes: null };
  }
  const content = bytes.subarray(0, size);
  return { sha256: createHash('sha256').update(content).digest('hex'), size, bytes: content };
}

/** Read size of the hash pass: few round trips to the thread pool, little memory per download. */
const HASH_CHUNK_BYTES = 256 * 1024;

/**
 * Hashes the whole file chunk by chunk through `handle`. Plain reads, not a read stream: a
 * destroyed stream closes its descriptor whatever `autoClose` says, and this one must stay
 * open for the send.
 */
async function hashWholeFile(handle: FileHandle): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  const chunk = Buffer.allocUnsafe(HASH_CHUNK_BYTES);
  let size = 0;
  for (;;) {
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, size);
    if (bytesRead === 0) return { sha256: hash.digest('hex'), size };
    hash.update(chunk.subarray(0, bytesRead));
    size += bytesRead;
  }
}

/**
 * Stores the hash of a row that pre-dates hashing and returns the row's hash. When a
 * concurrent request stored one first, that one counts: it was computed from the same file.
 */
async function backfillHash(sequelize: Sequelize, fileId: string, sha256: string): Promise<string | null> {
  const [stored] = await sequelize.query<{ sha256: string }>(`UPDATE files SET sha256 = $1 WHERE id = $2 AND sha256 IS NULL RETURNING sha256`, {
    bind: [sha256, fileId],
    type: QueryTypes.SELECT,
  });
  if (stored) return stored.sha256;
  const [current] = await sequelize.query<{ sha256: string | null }>(`SELECT sha256 FROM files WHERE id = $1`, { bind: [fileId], type: QueryTypes.SELECT });
  if (!current) throw notFound();
  return current.sha256;
}

/** Audits and logs the failed check, then refuses: the client gets no byte of a damaged file. */
async function refuseDamagedFile(services: AppServices, file: MediaFile, hashes: { expected: string | null; actual: string | null }, caller: MediaCaller): Promise<never> {
  const details = { fileId: file.id, pondId: file.pondId, ...hashes };
  services.logger.error(details, 'stored attachment does not match its hash');
  await recordAudit({ actor: caller.actor, action: 'file.integrity_failed', details, ip: caller.ip });
  throw new ApiError('attachment_integrity_failure', 500, { fileId: file.id });
}

/**
 * Answers with verified bytes: 304, 416, 206 for one satisfiable range, else 200 with the
 * whole file; HEAD gets the headers alone. Resolves once sent or once the client left; a
 * client that leaves mid-download is no error of ours, and the caller closes the handle then.
 */
export async function sendVerifiedFile(req: Request, res: Response, file: MediaFile, verified: VerifiedFile, logger: Logger): Promise<void> {
  // A row hashed just now had no tag to compare before the check.
  if (answerNotModified(req, res, verified.sha256)) return;
  const etag = entityTagOf(verified.sha256);
  const range = requestedByteRange(req.headers.range, headerValue(req.headers['if-range']), etag, verified.size);
  if (range.kind === 'unsatisfiable') {
    throw new ApiError('invalid_request', 416, { reason: 'range_not_satisfiable', size: verified.size }, { 'Content-Range': `bytes */${verified.size}` });
  }
  const start = range.kind === 'partial' ? range.start : 0;
  const end = range.kind === 'partial' ? range.end : verified.size - 1;
  res.status(range.kind === 'partial' ? 206 : 200);
  res.setHeader('Content-Type', servedContentType(file.contentType));
  res.setHeader('Content-Disposition', contentDispositionFor(file));
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', MEDIA_CONTENT_SECURITY_POLICY);
  res.setHeader('Cache-Control', MEDIA_CACHE_CONTROL);
  res.setHeader('ETag', etag);
  res.setHeader('Accept-Ranges', 'bytes');
  res.setHeader('Content-Length', String(end - start + 1));
  if (range.kind === 'partial') res.setHeader('Content-Range', `bytes ${start}-${end}/${verified.size}`);
  if (req.method === 'HEAD' || end < start) {
    res.end();
    return;
  }
  if (verified.bytes) {
    res.end(verified.bytes.subarray(start, end + 1));
    return;
  }
  try {
    // `autoClose: false`: the caller owns the descriptor and closes it on every path.
    await pipeline(verified.handle.createReadStream({ start, end, autoClose: false }), res);
  } catch (error) {
    // Headers are out: nothing left to answer. pipeline has destroyed the response already.
    if ((error as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE') logger.debug({ reqId: req.id, fileId: file.id }, 'client left during a media download');
    else logger.warn({ reqId: req.id, fileId: file.id, err: error }, 'media download broke off');
  }
}

/** Node joins most repeated headers; a list here would only come from a hand-made request. */
function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
