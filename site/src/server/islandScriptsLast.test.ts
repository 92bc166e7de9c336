/**
 * Astro's inline island scripts move to the end of the body — only those whose hash the page's
 * own policy lists, in their order — and nothing else of the page changes.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { moveIslandScriptsLast as moveInBytes } from './islandScriptsLast.ts';

/** The move on the page's UTF-8 bytes, as the middleware does it, read back as text. */
const moveIslandScriptsLast = (html: string, csp: string | null) => Buffer.from(moveInBytes(Buffer.from(html), csp)).toString('utf8');

const hash = (content: string) => `'sha256-${createHash('sha256').update(content).digest('base64')}'`;
const RUNTIME = '(()=>{customElements.define("astro-island",class extends HTMLElement{})})();';
const LOAD = '(()=>{window.dispatchEvent(new Event("astro:load"))})();';
const OTHER = 'console.log("not Astro’s: ä ö ü")';
const policy = `default-src 'self'; script-src 'self' ${hash(RUNTIME)} ${hash(LOAD)}; style-src 'self'`;

test('Astro’s hashed inline scripts go to just before </body>, in order; the rest stays where it was', () => {
  const html =
    `<html><head><script type="module" src="/_astro/a.js"></script></head><body><header><script>${LOAD}</script><script>${RUNTIME}</script>` +
    `<astro-island props="{&quot;title&quot;:[0,&quot;<script>alert(1)</script>&quot;]}"><p>Title</p></astro-island></header>` +
    `<main><p>Text</p><script>${OTHER}</script></main></body></html>`;
  const moved = moveIslandScriptsLast(html, policy);
  assert.equal(
    moved,
    `<html><head><script type="module" src="/_astro/a.js"></script></head><body><header>` +
      `<astro-island props="{&quot;title&quot;:[0,&quot;<script>alert(1)</script>&quot;]}"><p>Title</p></astro-island></header>` +
      `<main><p>Text</p><script>${OTHER}</script></main><script>${LOAD}</script><script>${RUNTIME}</script></body></html>`,
  );
});

test('a page without such scripts, without a policy or without a body is returned as it came', () => {
  const plain = '<html><body><p>Text</p></body></html>';
  assert.equal(moveIslandScriptsLast(plain, policy), plain);
  const withScript = `<html><body><script>${RUNTIME}</script><p>Text</p></body></html>`;
  assert.equal(moveIslandScriptsLast(withScript, null), withScript);
  assert.equal(moveIslandScriptsLast(withScript, "default-src 'self'; script-src 'self'"), withScript);
  const fragment = `<script>${RUNTIME}</script><p>Text</p>`;
  assert.equal(moveIslandScriptsLast(fragment, policy), fragment);
});
