// Astro serves every HTML page of Dorfteich. It runs inside the API's Express app
// (node adapter in middleware mode, see api/http/mountSite.ts), so Astro has no
// server of its own and static assets are served by Express from site/dist/client.
import { defineConfig } from 'astro/config';
import node from '@astrojs/node';
import svelte from '@astrojs/svelte';

export default defineConfig({
  output: 'server',
  // Pages are rendered whole, then sent: our pages are small and their data is loaded before
  // rendering, so streaming gains nothing, while it costs an encoded chunk per fragment (the
  // public layer renders every generated document through this handler, and that churn held
  // ~40 MB more RSS over 10,000 documents) and turns a render error into a cut-off 200.
  adapter: node({ mode: 'middleware', experimentalDisableStreaming: true }),
  integrations: [svelte()],
  srcDir: './site/src',
  publicDir: './site/public',
  outDir: './site/dist',
  // Signed-in state lives in the API's `dt_session` cookie; Astro's own session store
  // would be a second, unused source of truth (and the node adapter's default driver
  // writes to disk), so it is switched off.
  session: false,
  build: {
    // Each page carries its styles (about 30 KB, 8 KB gzip for a page in the app): a first
    // visit paints without waiting for stylesheet requests, which cost a member's page about
    // 40 ms before its text could be painted (bench:editor (a), empty cache). Astro lists their
    // hashes in the page's `style-src`, so the policy still admits no other inline style.
    inlineStylesheets: 'always',
  },
  security: {
    // On-demand pages get this as a Content-Security-Policy response header; Astro adds
    // `script-src` / `style-src` with hashes of the inline scripts it emits itself
    // (island bootstrap), so no 'unsafe-inline' is needed.
    csp: {
      algorithm: 'SHA-256',
      directives: [
        "default-src 'self'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
      ],
    },
  },
  // No Markdown pages are rendered by Astro; Shiki's inline styles would clash with the CSP.
  markdown: { syntaxHighlight: false },
  devToolbar: { enabled: false },
});
