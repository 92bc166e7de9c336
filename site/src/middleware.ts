/**
 * Every HTML page Astro renders passes here on its way out: Astro's island scripts are moved
 * to the end of the body (server/islandScriptsLast.ts), so the page's text is parsed and
 * painted in one go. Pages are rendered whole (streaming is off in astro.config.mjs), so this
 * holds the same bytes once more, briefly.
 */
import { defineMiddleware } from 'astro:middleware';
import { moveIslandScriptsLast } from './server/islandScriptsLast.ts';

export const onRequest = defineMiddleware(async (context, next) => {
  const response = await next();
  // A generated public document has no script at all (the renderer refuses one,
  // api/publicPages/astroDocumentRenderer.ts): nothing to move, so its bytes are not read and
  // copied into a new Response here (a tenth of its render, bench:public (d)).
  if (context.locals.publicDocument) return response;
  if (!(response.headers.get('content-type') ?? '').startsWith('text/html') || response.body === null) return response;
  const page = new Uint8Array(await response.arrayBuffer());
  const moved = moveIslandScriptsLast(page, response.headers.get('content-security-policy'));
  return new Response(moved, { status: response.status, statusText: response.statusText, headers: response.headers });
});
