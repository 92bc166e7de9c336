/**
 * Turns a PublicDocumentModel into the complete HTML of a generated public document, through
 * the built Astro site (site/src/pages/-dt/public-document.astro), in any process: the API,
 * the Graphile worker, a script. No HTTP server and no Express: the node adapter's handler
 * (`site/dist/server/entry.mjs`, middleware mode) is called with a request made in memory and
 * a response whose writes are collected.
 *
 * Why the handler and not Astro's container API: the container renders one component without
 * the build's manifest, so it would need its own Vite pipeline for the `.astro` files at run
 * time; the built entry is what the site serves anyway, and loads once in ~100 ms.
 *
 * The result is checked before it is returned (`assertStaticDocument`): a public document
 * carries no script and no `<meta http-equiv>` policy of Astro's. Astro puts its CSP for
 * on-demand pages in a response header (not a meta tag), and the renderer never passes
 * headers on, so the document is served with the public layer's own policy only.
 */
import { existsSync } from 'node:fs';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { PublicDocumentModel } from './publicDocumentModel.ts';

const SERVER_ENTRY = fileURLToPath(new URL('../../site/dist/server/entry.mjs', import.meta.url));
/** The page's route (site/src/pages/-dt/public-document.astro). */
export const PUBLIC_DOCUMENT_ROUTE = '/-dt/public-document';

type AstroHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  next?: (error?: unknown) => void,
  locals?: { publicDocument: PublicDocumentModel },
) => Promise<void>;

/** Loads the server entry on first use; a failed load (site not built yet) is retried on the next call. */
function lazyHandler(serverEntry: string): () => Promise<AstroHandler> {
  let loading: Promise<AstroHandler> | null = null;
  return () => {
    loading ??= (async () => {
      if (!existsSync(serverEntry)) {
        throw new Error(`Cannot render public documents: the site is not built (${serverEntry} is missing). Run \`node scripts/build-site.ts\`.`);
      }
      const entry = (await import(pathToFileURL(serverEntry).href)) as { handler?: unknown };
      if (typeof entry.handler !== 'function') throw new Error(`Cannot render public documents: ${serverEntry} exports no handler`);
      return entry.handler as AstroHandler;
    })();
    loading.catch(() => {
      loading = null;
    });
    return loading;
  };
}

/** A response that keeps what is written instead of sending it anywhere. */
class CapturingResponse extends ServerResponse {
  readonly chunks: Buffer[] = [];
  ended = false;
  /** Set when the renderer gave up mid-stream (the status was already written as 200 then). */
  failure: Error | null = null;

  override destroy(error?: Error): this {
    this.failure = error ?? new Error('the response was destroyed');
    return this;
  }

  override write(chunk: unknown, encodingOrCallback?: unknown, callback?: unknown): boolean {
    this.collect(chunk, encodingOrCallback);
    const done = typeof encodingOrCallback === 'function' ? encodingOrCallback : callback;
    if (typeof done === 'function') queueMicrotask(() => (done as () => void)());
    return true;
  }

  override end(chunk?: unknown, encodingOrCallback?: unknown, callback?: unknown): this {
    if (chunk !== undefined && typeof chunk !== 'function') this.collect(chunk, encodingOrCallback);
    this.ended = true;
    // Astro's writeResponse frees its per-request listeners on 'finish'.
    this.emit('finish');
    const done = [chunk, encodingOrCallback, callback].find((candidate) => typeof candidate === 'function');
    if (typeof done === 'function') queueMicrotask(() => (done as () => void)());
    return this;
  }

  private collect(chunk: unknown, encoding: unknown): void {
    if (chunk === null || chunk === undefined) return;
    if (typeof chunk === 'string') this.chunks.push(Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'));
    else if (chunk instanceof Uint8Array) this.chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  }
}

function syntheticRequest(): IncomingMessage {
  // Never connected: only carries what Astro reads (method, url, headers, socket events).
  const request = new IncomingMessage(new Socket());
  request.method = 'GET';
  request.url = PUBLIC_DOCUMENT_ROUTE;
  request.headers = { host: 'localhost' };
  return request;
}

/** A comment, a raw-text element's content (skipped), or a tag with its attribute text (quotes respected). */
const MARKUP = /<!--[\s\S]*?-->|<style\b(?:[^>"']|"[^"]*"|'[^']*')*>[\s\S]*?<\/style\s*>|<\/?([a-zA-Z][^\s/>]*)((?:[^>"']|"[^"]*"|'[^']*')*)>/g;
/** One attribute: its name and its value, double-, single- or unquoted. */
const ATTRIBUTE = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;
const URL_ATTRIBUTES = new Set(['href', 'src', 'action', 'formaction', 'xlink:href', 'poster', 'data']);

/** A numeric character reference as a browser decodes it (out-of-range code points become U+FFFD). */
function codePoint(value: number): string {
  return value <= 0x10ffff ? String.fromCodePoint(value) : '\uFFFD';
}

/**
 * An attribute value as a browser reads its scheme: character references decoded in one pass
 * (as a browser does: `&#x26;#106;` is the text `&#106;`, not a `j`), controls and spaces dropped.
 */
function urlScheme(value: string): string {
  const decoded = value.replace(/&(?:#x([0-9a-f]+)|#(\d+)|(colon)|tab|newline);?/gi, (_, hex?: string, decimal?: string, colon?: string) =>
    hex ? codePoint(Number.parseInt(hex, 16)) : decimal ? codePoint(Number(decimal)) : colon ? ':' : '',
  );
  return decoded.replace(/[\u0000-\u0020]/g, '').toLowerCase();
}

/**
 * Throws when the HTML holds anything that would run, or a policy of Astro's: a `<script>`
 * element, an `on…` handler attribute, a `javascript:` URL, or a `<meta http-equiv>` (which
 * would contradict the public layer's CSP header). Our template has none of these and bodies
 * are sanitized, so a hit means a template or Astro change, and the document must not be
 * stored. Tags are read with their attributes one by one, so text inside a quoted value (a
 * title reading `<img src=javascript:…>`, which the serializer may leave unescaped there) is
 * a value, never markup; style contents are skipped.
 */
export function assertStaticDocument(html: string): void {
  for (const match of html.matchAll(MARKUP)) {
    const name = match[1]?.toLowerCase();
    if (!name) continue;
    if (name === 'script') throw new Error('A rendered public document contains a <script> element');
    const attributes = match[2] ?? '';
    if (!attributes.includes('=')) continue;
    for (const attribute of attributes.matchAll(ATTRIBUTE)) {
      const attributeName = (attribute[1] ?? '').toLowerCase();
      const value = attribute[2] ?? attribute[3] ?? attribute[4] ?? '';
      if (attributeName.startsWith('on')) throw new Error(`A rendered public document contains an event handler attribute on <${name}>`);
      if (URL_ATTRIBUTES.has(attributeName) && /^(?:javascript|vbscript):/.test(urlScheme(value))) {
        throw new Error(`A rendered public document contains a script URL on <${name}>`);
      }
      if (name === 'meta' && attributeName === 'http-equiv') throw new Error('A rendered public document contains a <meta http-equiv> element');
    }
  }
}

export type PublicDocumentRenderer = (model: PublicDocumentModel) => Promise<string>;

/** A renderer over a given server entry (tests point it elsewhere; everyone else uses `renderPublicDocumentHtml`). */
export function createPublicDocumentRenderer(serverEntry: string = SERVER_ENTRY): PublicDocumentRenderer {
  const loadHandler = lazyHandler(serverEntry);
  return async (model) => {
    const handler = await loadHandler();
    const request = syntheticRequest();
    const response = new CapturingResponse(request);
    await handler(request, response, undefined, { publicDocument: model });
    // Rendering is not streamed (astro.config.mjs), so an error while rendering is a 500; the
    // destroyed-response check stays for a build that streams again.
    if (response.failure) throw new Error(`Rendering a public document failed: ${response.failure.message}`);
    if (!response.ended) throw new Error('Rendering a public document did not finish its response');
    if (response.statusCode !== 200) throw new Error(`Rendering a public document answered ${response.statusCode}, not 200`);
    const html = Buffer.concat(response.chunks).toString('utf8');
    assertStaticDocument(html);
    return html;
  };
}

/** The complete HTML document for `model`; the same model always gives the same string. */
export const renderPublicDocumentHtml: PublicDocumentRenderer = createPublicDocumentRenderer();
