/**
 * Watching a Chromium page for script that runs when it must not (public-xss.test.ts). Every
 * vector of content-pipeline/html/xssVectors.ts, if it ever ran, calls `alert`, `confirm`,
 * `prompt` or `print`, or loads a script from xss.rocks; so a page counts as executing when
 * - one of those four functions is called (replaced before any of the page's own code runs,
 *   in every frame, by an init script, which the document's CSP does not apply to),
 * - a dialog opens anyway (a frame the init script missed),
 * - the browser reports a Content-Security-Policy violation (something tried and was
 *   stopped only by the policy: the sanitizer let it through), or
 * - a request leaves our origin (the vectors' script and style URLs; see openReader).
 * Beside executions, the DOM as Chromium built it is checked the way xssCorpus.test.ts checks
 * the serialized HTML: no executable elements, no event handler attributes, no URL with a
 * script scheme — so a handler that needs a click or a hover to run is caught too.
 */
import type { Page } from 'playwright-core';
import type { Reader } from './publicFixtures.ts';

declare global {
  interface Window {
    __dtXss?: string[];
  }
}

export interface GuardedReader extends Reader {
  /** Executions seen since the last call (and resets them), plus the reader's console problems and outside requests. */
  takeFindings: () => Promise<string[]>;
}

/** Installs the watchers on a reader's context; must run before its first navigation. */
export async function guard(reader: Reader): Promise<GuardedReader> {
  const dialogs: string[] = [];
  await reader.context.addInitScript(() => {
    const log: string[] = [];
    Object.defineProperty(window, '__dtXss', { value: log, writable: false, configurable: false });
    for (const name of ['alert', 'confirm', 'prompt', 'print'] as const) {
      Object.defineProperty(window, name, {
        value: (...args: unknown[]) => {
          log.push(`${name}(${args.map(String).join(', ')})`);
        },
        writable: false,
        configurable: false,
      });
    }
    document.addEventListener('securitypolicyviolation', (event) => log.push(`csp ${event.effectiveDirective} blocked ${event.blockedURI || 'inline'}`), true);
  });
  reader.page.on('dialog', (dialog) => {
    dialogs.push(`dialog ${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss().catch(() => undefined);
  });
  return {
    ...reader,
    takeFindings: async () => {
      const inPage = await reader.page.evaluate(() => window.__dtXss?.splice(0) ?? ['the detector is missing']);
      const findings = [...inPage, ...dialogs.splice(0), ...reader.problems.splice(0), ...reader.foreignRequests.splice(0).map((url) => `request to ${url}`)];
      return findings;
    },
  };
}

/**
 * What xssCorpus.test.ts forbids, found in the live DOM of the document's body, or of the
 * elements `within` selects (a site page's own scripts and forms are not the content's).
 */
export function executableMarkup(page: Page, within = 'body'): Promise<string[]> {
  return page.evaluate((selector) => {
    const forbidden = new Set(['script', 'iframe', 'object', 'embed', 'frame', 'frameset', 'applet', 'base', 'meta', 'link', 'form', 'style', 'foreignobject', 'handler', 'animate', 'set', 'noscript', 'template', 'math', 'image']);
    const urlAttributes = new Set(['href', 'src', 'xlink:href', 'action', 'formaction', 'data', 'background', 'poster', 'srcset', 'cite']);
    const found: string[] = [];
    for (const element of [...document.querySelectorAll(selector)].flatMap((root) => [...root.querySelectorAll('*')])) {
      const tag = element.localName.toLowerCase();
      if (forbidden.has(tag)) found.push(`<${tag}>`);
      for (const attribute of element.attributes) {
        const name = attribute.name.toLowerCase();
        if (name.startsWith('on')) found.push(`<${tag} ${name}>`);
        if (name === 'style') found.push(`<${tag} style>`);
        if (!urlAttributes.has(name)) continue;
        let protocol: string;
        try {
          protocol = new URL(attribute.value, document.baseURI).protocol;
        } catch {
          continue; // not a URL a browser would follow
        }
        if (!['http:', 'https:', 'mailto:'].includes(protocol)) found.push(`<${tag} ${name}="${attribute.value}">`);
      }
    }
    return found;
  }, within);
}
