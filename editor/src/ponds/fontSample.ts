/**
 * A Svelte action that shows an element in a catalog font: loads the font's sample face
 * through the FontFace API, then sets `font-family` through the CSSOM. Both are allowed by the
 * app's CSP, which (rightly) forbids style attributes in the markup.
 */
import type { FontChoiceView } from '../api/apiViews.ts';

const loading = new Map<string, Promise<unknown>>();

function load(font: FontChoiceView): Promise<unknown> {
  if (!font.sample) return Promise.resolve();
  let pending = loading.get(font.id);
  if (!pending) {
    const face = new FontFace(font.sample.family, `url(${font.sample.urlPath})`);
    document.fonts.add(face);
    pending = face.load().catch(() => undefined);
    loading.set(font.id, pending);
  }
  return pending;
}

export function fontSample(element: HTMLElement, font: FontChoiceView | undefined) {
  const apply = (next: FontChoiceView | undefined) => {
    if (!next) return;
    element.style.fontFamily = next.stack;
    void load(next);
  };
  apply(font);
  return { update: apply };
}
