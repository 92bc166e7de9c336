/**
 * Receives one multipart upload (`POST /pages/:id/files`, part `file`) as it streams in, never
 * buffered whole (ARCHITECTURE: busboy + file-type):
 * 1. the extension is judged from the part's file name before a byte is stored;
 * 2. the first bytes are held until the sniffer has enough (file-type's 4,100), and must agree
 *    with the extension;
 * 3. then they go to a temporary file under `DATA_DIR/files/tmp/`, hashed (SHA-256) and
 *    counted on the way: past `max_file_bytes` or the pond's remaining storage the upload is
 *    refused at once;
 * 4. an SVG is held whole instead (at most the sanitizer's 1 MB) and stored sanitized.
 * On any refusal or a cut-off request the temporary file is removed; the caller renames a
 * complete one into place inside the transaction that writes its row (fileCommands.ts).
 */
import busboy from 'busboy';
import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { Request } from 'express';
import { MAX_SVG_SNAPSHOT_LENGTH, sanitizeSvg } from '../../content-pipeline/index.ts';
import { ApiError } from '../http/apiError.ts';
import { externalBufferRelease } from './externalBufferRelease.ts';
import { assertExtensionAllowed, cleanFileName, contentTypeFor, extensionOf, refuseUpload, SNIFF_BYTES, SVG_CONTENT_TYPE, SVG_EXTENSION } from './uploadPolicy.ts';

export interface UploadRules {
  allowedExtensions: readonly string[];
  svgPolicy: 'reject' | 'sanitize';
  /** `max_file_bytes`; null: unlimited. */
  maxFileBytes: number | null;
  /** The pond's storage quota (null: unlimited) and what its files use now. */
  storageLimit: number | null;
  storageUsed: number;
}

export interface ReceivedUpload {
  tempPath: string;
  name: string;
  extension: string;
  contentType: string;
  sizeBytes: number;
  sha256: string;
}

/** Room for the multipart framing around the file part when judging a declared Content-Length. */
const MULTIPART_OVERHEAD = 64 * 1024;

export function tempUploadDir(dataDir: string): string {
  return path.join(dataDir, 'files', 'tmp');
}

export function quotaExceeded(quota: 'max_file_bytes' | 'storage_bytes', limit: number): ApiError {
  return new ApiError('quota_exceeded', 413, { quota, limit });
}

/** The bytes this upload may still take: the smaller of the file limit and the pond's room. */
function byteBudget(rules: UploadRules): { limit: number; refusal: () => ApiError } | null {
  const room = rules.storageLimit === null ? null : Math.max(0, rules.storageLimit - rules.storageUsed);
  if (rules.maxFileBytes === null && room === null) return null;
  if (room === null || (rules.maxFileBytes !== null && rules.maxFileBytes <= room)) {
    return { limit: rules.maxFileBytes!, refusal: () => quotaExceeded('max_file_bytes', rules.maxFileBytes!) };
  }
  return { limit: room, refusal: () => quotaExceeded('storage_bytes', rules.storageLimit!) };
}

export async function receiveUpload(req: Request, dataDir: string, rules: UploadRules): Promise<ReceivedUpload> {
  if (typeof req.is('multipart/form-data') !== 'string') throw new ApiError('unsupported_media_type', 415, { expected: 'multipart/form-data' });
  const budget = byteBudget(rules);
  const declared = Number(req.headers['content-length']);
  if (budget && Number.isFinite(declared) && declared > budget.limit + MULTIPART_OVERHEAD) throw budget.refusal();
  const tempDir = tempUploadDir(dataDir);
  await mkdir(tempDir, { recursive: true });
  return new Promise<ReceivedUpload>((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, defParamCharset: 'utf8', limits: { files: 1, fields: 10, fieldSize: 1024, parts: 12, headerPairs: 50 } });
    } catch {
      reject(new ApiError('invalid_request', 400, { reason: 'malformed_multipart' }));
      return;
    }
    let stored: Promise<ReceivedUpload> | null = null;
    let current: Readable | null = null;
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      req.unpipe(parser);
      // The part still streaming ends with the error: storeFilePart removes its temporary file.
      current?.destroy(error instanceof Error ? error : new Error(String(error)));
      const answer = () => reject(error);
      if (stored) stored.then(async (upload) => void (await rm(upload.tempPath, { force: true })), () => undefined).finally(answer);
      else answer();
    };
    parser.on('file', (field, stream, info) => {
      if (field !== 'file' || stored) {
        stream.resume();
        fail(new ApiError('validation_failed', 400, { issues: [{ path: ['file'], message: 'exactly one file part named "file"' }] }));
        return;
      }
      current = stream;
      stored = storeFilePart(stream, info.filename ?? '', tempDir, rules, budget);
      stored.catch(fail);
    });
    parser.on('filesLimit', () => fail(new ApiError('validation_failed', 400, { issues: [{ path: ['file'], message: 'exactly one file part named "file"' }] })));
    parser.on('partsLimit', () => fail(new ApiError('invalid_request', 400, { reason: 'malformed_multipart' })));
    parser.on('error', () => fail(new ApiError('invalid_request', 400, { reason: 'malformed_multipart' })));
    parser.on('close', () => {
      if (!stored) return fail(new ApiError('validation_failed', 400, { issues: [{ path: ['file'], message: 'a file part named "file" is required' }] }));
      stored.then((upload) => {
        if (settled) return;
        settled = true;
        resolve(upload);
      }, fail);
    });
    // A client that goes away half-way: no row, no bytes.
    req.on('aborted', () => fail(new ApiError('invalid_request', 400, { reason: 'upload_aborted' })));
    req.on('close', () => {
      if (!req.complete) fail(new ApiError('invalid_request', 400, { reason: 'upload_aborted' }));
    });
    req.pipe(parser);
  });
}

async function storeFilePart(stream: Readable, rawName: string, tempDir: string, rules: UploadRules, budget: ReturnType<typeof byteBudget>): Promise<ReceivedUpload> {
  const extension = extensionOf(rawName);
  const name = cleanFileName(rawName, extension);
  const tempPath = path.join(tempDir, `${randomUUID()}.part`);
  let out: WriteStream | null = null;
  try {
    assertExtensionAllowed(extension, rules.allowedExtensions, rules.svgPolicy);
    if (extension === SVG_EXTENSION) return await storeSanitizedSvg(stream, name, tempPath, budget);
    const hash = createHash('sha256');
    const head: Buffer[] = [];
    let headLength = 0;
    let size = 0;
    let contentType = '';
    const write = async (chunk: Buffer) => {
      hash.update(chunk);
      if (!out!.write(chunk)) await once(out!, 'drain');
    };
    const startWriting = async () => {
      const sample = Buffer.concat(head);
      contentType = await contentTypeFor(extension, sample.subarray(0, SNIFF_BYTES));
      // Large writes: a 64 KB socket chunk no longer waits for a 16 KB buffer to drain.
      out = createWriteStream(tempPath, { flags: 'wx', highWaterMark: 1024 * 1024 });
      await write(sample);
    };
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      externalBufferRelease.passed(chunk.length);
      size += chunk.length;
      if (budget && size > budget.limit) throw budget.refusal();
      if (out) {
        await write(chunk);
        continue;
      }
      head.push(chunk);
      headLength += chunk.length;
      if (headLength >= SNIFF_BYTES) await startWriting();
    }
    if (!out) await startWriting();
    const finished = out as unknown as WriteStream;
    finished.end();
    await once(finished, 'close');
    return { tempPath, name, extension, contentType, sizeBytes: size, sha256: hash.digest('hex') };
  } catch (error) {
    stream.resume();
    if (out) {
      const partial = out as WriteStream;
      // A write still under way fails once the stream is destroyed (ERR_STREAM_DESTROYED): that
      // is the point. Unheard, the 'error' would be an uncaught exception of the API process.
      partial.on('error', () => undefined);
      const closed = new Promise<void>((resolve) => partial.once('close', () => resolve()));
      partial.destroy();
      await closed;
    }
    await rm(tempPath, { force: true });
    throw error;
  }
}

/** An SVG is read whole (the sanitizer needs the document), then only its sanitized form is stored. */
async function storeSanitizedSvg(stream: Readable, name: string, tempPath: string, budget: ReturnType<typeof byteBudget>): Promise<ReceivedUpload> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (budget && size > budget.limit) throw budget.refusal();
    if (size > MAX_SVG_SNAPSHOT_LENGTH) throw new ApiError('payload_too_large', 413, { maxBytes: MAX_SVG_SNAPSHOT_LENGTH });
    chunks.push(chunk);
  }
  const sanitized = sanitizeSvg(Buffer.concat(chunks).toString('utf8'));
  if (sanitized === null) throw refuseUpload('not_svg', SVG_EXTENSION);
  // A file of its own needs the namespace an inline snapshot gets from its HTML parent.
  const document = /^<svg[^>]*\sxmlns=/.test(sanitized) ? sanitized : sanitized.replace(/^<svg/, '<svg xmlns="http://www.w3.org/2000/svg"');
  const bytes = Buffer.from(document, 'utf8');
  if (budget && bytes.length > budget.limit) throw budget.refusal();
  const out = createWriteStream(tempPath, { flags: 'wx' });
  out.end(bytes);
  await once(out, 'close');
  return { tempPath, name, extension: SVG_EXTENSION, contentType: SVG_CONTENT_TYPE, sizeBytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
}
