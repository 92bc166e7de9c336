/**
 * The files bench's payload and its client side: a PNG-headed file generated from one 1 MiB
 * block (so a 50 MB body is never held, let alone twice), sent as a browser sends it
 * (`multipart/form-data`, part `file`) over a fresh `node:http` connection with the body
 * streamed under backpressure, and the same bytes written to disk in-process for comparison.
 *
 * Why a `.png`: raster images are always allowed, whatever `upload.allowedExtensions` says,
 * and the sniffer really matches a signature (a text file passes by matching nothing); the
 * same file type then serves the media part, which the issue states for an image. The head is
 * a real PNG signature, IHDR chunk and the header of an IDAT chunk whose data is random filler
 * (file-type reads IHDR, then stops at IDAT: PNG). Nothing decodes the picture; no code path
 * the bench measures does.
 *
 * The filler is random bytes written as base64 text: autocannon 9 appends every response body
 * to a string (`req.body += data`, lib/pipelinedRequestsQueue.js), and decoding 1 MB of binary
 * as UTF-8 costs the client ~30 ms, which capped both media servers at ~30 req/s while they
 * idled (measured: 33 req/s with binary filler, 300–400 with ASCII, the same raw server). ASCII
 * takes V8's fast path. The servers never look at the bytes; hashing and copying cost the same.
 */
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { request } from 'node:http';
import { crc32 } from 'node:zlib';

const FILLER_BYTES = 1024 * 1024;

export interface PayloadFile {
  name: string;
  size: number;
  sha256: string;
  /** The file's bytes in order: the head, then slices of the one filler block. */
  chunks(): Iterable<Buffer>;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

/** Signature, IHDR (4096 × 4096, 8-bit RGBA) and the 8-byte header of an IDAT chunk holding the rest. */
function pngHead(size: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(4096, 0);
  ihdr.writeUInt32BE(4096, 4);
  ihdr.set([8, 6, 0, 0, 0], 8);
  const prefix = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), pngChunk('IHDR', ihdr)]);
  const idat = Buffer.alloc(8);
  idat.writeUInt32BE(size - prefix.length - idat.length, 0);
  idat.write('IDAT', 4, 'latin1');
  return Buffer.concat([prefix, idat]);
}

/** A `size`-byte PNG-headed file; its SHA-256 computed once here, by streaming it. */
export function pngPayload(name: string, size: number): PayloadFile {
  const head = pngHead(size);
  const filler = Buffer.from(randomBytes((FILLER_BYTES * 3) / 4).toString('base64'), 'latin1');
  function* chunks(): Iterable<Buffer> {
    yield head;
    for (let left = size - head.length; left > 0; left -= filler.length) yield left >= filler.length ? filler : filler.subarray(0, left);
  }
  const hash = createHash('sha256');
  for (const chunk of chunks()) hash.update(chunk);
  return { name, size, sha256: hash.digest('hex'), chunks };
}

export interface PostedFile {
  status: number;
  body: string;
  /** From the first byte sent to the last byte of the answer. */
  seconds: number;
  /** The whole request body: the file and the multipart framing. */
  bodyBytes: number;
}

/** Streams `file` as the multipart part `file` to `url`; the same bytes whichever server answers. */
export async function postMultipart(url: string, file: PayloadFile, headers: Record<string, string>): Promise<PostedFile> {
  const boundary = `----dorfteich-bench-${randomBytes(8).toString('hex')}`;
  const preamble = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: image/png\r\n\r\n`);
  const epilogue = Buffer.from(`\r\n--${boundary}--\r\n`);
  const bodyBytes = preamble.length + file.size + epilogue.length;
  const started = process.hrtime.bigint();
  // `agent: false`: a connection of its own, as a browser's upload mostly gets; the same for both servers.
  const req = request(url, { method: 'POST', agent: false, headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(bodyBytes) } });
  const answered = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req.on('response', (res) => {
      const parts: Buffer[] = [];
      res.on('data', (part: Buffer) => parts.push(part));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(parts).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
  // An answer before the body is all sent is a refusal: stop sending, report it.
  let early = false;
  answered.then(
    () => (early = true),
    () => (early = true),
  );
  // Backpressure: never more than what the socket holds plus one block in flight.
  for (const chunk of [preamble, ...file.chunks(), epilogue]) {
    if (early) break;
    if (!req.write(chunk)) await Promise.race([once(req, 'drain'), answered]);
  }
  if (early) req.destroy();
  else req.end();
  const { status, body } = await answered;
  return { status, body, seconds: Number(process.hrtime.bigint() - started) / 1e9, bodyBytes };
}

/** The same bytes to a file with a plain write stream, no HTTP: seconds until closed. */
export async function writeInProcess(target: string, file: PayloadFile): Promise<number> {
  const started = process.hrtime.bigint();
  const out = createWriteStream(target);
  for (const chunk of file.chunks()) {
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'close');
  return Number(process.hrtime.bigint() - started) / 1e9;
}
