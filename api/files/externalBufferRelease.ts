/**
 * Frees the buffers an upload's bytes pass through in step with the bytes, instead of leaving
 * them to the collection V8 would choose.
 *
 * Why: every 64 KB read from a socket is memory outside the JavaScript heap that is freed only
 * when a garbage collection finds its Buffer dead. Passing bytes along allocates almost no
 * JavaScript objects, so with the services' 16 MB semi-spaces (scripts/serviceNodeFlags.ts)
 * no young-generation collection comes for tens of megabytes; the external memory piles up
 * until V8 answers it with a full mark of the whole heap (the API's is ~55 MB). Measured with
 * `npm run bench:files`, 50 MB uploads: V8's threads spent 2.4 ms per MB on that, the process's RSS grew by 69 MB, and uploads ran at
 * 0.46× a raw pipe-to-disk server. A young-generation collection after every 8 MiB (a
 * scavenge: it visits only the young objects still alive, about a millisecond) frees the dead
 * buffers before the full mark is set off: 0.4 ms per MB on V8's threads, +11 MB RSS, 0.79×.
 * Smaller semi-spaces for the whole process do the same for uploads, but cost the public
 * document path about 10 % more CPU per request (bench:public (a), (b)). A download running
 * while an upload collects may see its few live objects promoted; uploads are rare next to
 * downloads, and it happens once per 8 MiB.
 *
 * The collector comes from a fresh V8 context with `--expose-gc` set at run time, so the
 * service's own global scope gets no `gc`. Where V8 refuses that, nothing is collected early.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Collect = (options: { type: 'minor' }) => void;

/**
 * Bytes passed between two young-generation collections, across every upload of the process.
 * Not for downloads: a `GET /media` holds its buffer until its response is written, and
 * collecting while ten of them are in flight moved their objects to the old generation (the
 * bench's media figure fell from 0.56–0.60× to 0.34–0.38× with it).
 */
export const RELEASE_EVERY_BYTES = 8 * 1024 * 1024;

export function youngGenerationCollector(): Collect | null {
  try {
    setFlagsFromString('--expose-gc');
    const collect: unknown = runInNewContext('typeof gc === "function" ? gc : null');
    return typeof collect === 'function' ? (collect as Collect) : null;
  } catch {
    return null;
  }
}

export interface BufferRelease {
  /** Counts bytes just passed through buffers; collects the young generation each time the total crosses a multiple of the interval. */
  passed(bytes: number): void;
}

export function bufferRelease(collect: Collect | null, everyBytes = RELEASE_EVERY_BYTES): BufferRelease {
  let sinceLast = 0;
  return {
    passed(bytes) {
      if (!collect) return;
      sinceLast += bytes;
      if (sinceLast < everyBytes) return;
      sinceLast %= everyBytes;
      collect({ type: 'minor' });
    },
  };
}

/** The process's one counter: concurrent uploads share it, so collections follow the total bytes. */
export const externalBufferRelease = bufferRelease(youngGenerationCollector());
