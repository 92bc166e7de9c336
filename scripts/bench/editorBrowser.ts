/**
 * The editor bench's measurements in Chromium, on top of uiBrowser.ts's navigation (its
 * context, load timing and long tasks). A second init script, installed before any of the
 * page's own, watches the document as it is parsed and built:
 *
 * - **First readable text**: the first `<p>` whose text starts with the body's first words
 *   (the same paragraph in the app's server-rendered body and in the public document). When
 *   it enters the DOM the probe gives it an `elementtiming` attribute, so Chromium's Element
 *   Timing reports the moment its text was painted (`renderTime`) — the figure. As a cross
 *   check, the probe also notes the end of the first frame after the paragraph arrived
 *   (requestAnimationFrame, then a message: after that frame's paint) and whether the
 *   paragraph was inside the 1280 × 800 viewport then.
 * - **Editable and synced**: the editor has taken over (`.page-editor[data-phase="live"]`),
 *   its ProseMirror element is `contenteditable="true"` and the status line says saved
 *   (`.editor-status[data-state="saved"]`: socket connected, synced, nothing unacknowledged —
 *   connectionState.ts), all at once; `performance.now()` then.
 *
 * Both in milliseconds since the navigation started (the page's `timeOrigin`).
 */
import type { BrowserContext, Page } from 'playwright-core';
import { navigate, type NavigationSample, type NavigationTarget } from './uiBrowser.ts';

export interface EditorTarget extends NavigationTarget {
  /** The body's first words: the paragraph waited for; null: only the load event (the blank page). */
  phrase: string | null;
  /** Whether to wait for the editor to be editable and synced too. */
  editor: boolean;
}

interface EditorProbe {
  textInDom: number | null;
  frameAfterText: number | null;
  textInViewport: boolean | null;
  elementPaint: number | null;
  editable: number | null;
  firstContentfulPaint: number | null;
}

export interface EditorSample {
  navigation: NavigationSample;
  /** Element Timing's paint of the first paragraph (or, when it gave none, the frame after it arrived). */
  text: number | null;
  textSource: 'element timing' | 'frame after';
  frameAfterText: number | null;
  textInViewport: boolean | null;
  editable: number | null;
  firstContentfulPaint: number | null;
}

const ELEMENT_ID = 'dt-bench-first-text';

/** Runs in the page before its own scripts (serialized by Playwright: no closures over this module). */
function installEditorProbe(options: { phrase: string | null; editor: boolean; elementId: string }): void {
  const probe: EditorProbe = { textInDom: null, frameAfterText: null, textInViewport: null, elementPaint: null, editable: null, firstContentfulPaint: null };
  (window as unknown as { __editorBench: EditorProbe }).__editorBench = probe;
  try {
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as (PerformanceEntry & { identifier: string; renderTime: number; loadTime: number })[]) {
        if (entry.identifier === options.elementId && probe.elementPaint === null) probe.elementPaint = entry.renderTime || entry.loadTime;
      }
    }).observe({ type: 'element', buffered: true });
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) if (entry.name === 'first-contentful-paint') probe.firstContentfulPaint = entry.startTime;
    }).observe({ type: 'paint', buffered: true });
  } catch {
    // No Element Timing in this browser: the frame after the paragraph stands in.
  }
  const { phrase, editor } = options;
  const check = () => {
    if (phrase !== null && probe.textInDom === null) {
      const paragraph = [...document.getElementsByTagName('p')].find((candidate) => (candidate.textContent ?? '').trimStart().startsWith(phrase));
      if (paragraph) {
        probe.textInDom = performance.now();
        paragraph.setAttribute('elementtiming', options.elementId);
        requestAnimationFrame(() => {
          const rect = paragraph.getBoundingClientRect();
          probe.textInViewport = rect.top < window.innerHeight && rect.bottom > 0;
          const channel = new MessageChannel();
          channel.port1.onmessage = () => (probe.frameAfterText = performance.now());
          channel.port2.postMessage(null);
        });
      }
    }
    if (editor && probe.editable === null) {
      const content = document.querySelector('.page-editor[data-phase="live"] .page-editor-content[contenteditable="true"]');
      const saved = document.querySelector('.page-editor .editor-status[data-state="saved"]');
      if (content && saved) probe.editable = performance.now();
    }
    if ((phrase === null || probe.textInDom !== null) && (!editor || probe.editable !== null)) observer.disconnect();
  };
  const observer = new MutationObserver(check);
  observer.observe(document, { childList: true, subtree: true, characterData: true, attributes: true, attributeFilter: ['contenteditable', 'data-state', 'data-phase'] });
}

export async function prepareEditorContext(context: BrowserContext, target: EditorTarget): Promise<void> {
  await context.addInitScript(installEditorProbe, { phrase: target.phrase, editor: target.editor, elementId: ELEMENT_ID });
}

/** One navigation: uiBrowser's (until the load event), then until the text is painted and, for the editor, it is editable and synced. */
export async function navigateEditor(page: Page, target: EditorTarget): Promise<EditorSample> {
  const navigation = await navigate(page, target);
  try {
    await page.waitForFunction(
      ({ wanted }) => {
        const probe = (window as unknown as { __editorBench: EditorProbe }).__editorBench;
        return (wanted.phrase === null || (probe.frameAfterText !== null && probe.elementPaint !== null)) && (!wanted.editor || probe.editable !== null);
      },
      { wanted: { phrase: target.phrase, editor: target.editor } },
      { timeout: 15_000 },
    );
  } catch {
    // Element Timing may stay silent (then the frame after stands in); a missing editor is an error below.
  }
  const probe = await page.evaluate(() => (window as unknown as { __editorBench: EditorProbe }).__editorBench);
  if (target.phrase !== null && probe.frameAfterText === null) throw new Error(`${target.name}: the first paragraph ("${target.phrase}") never appeared`);
  if (target.editor && probe.editable === null) throw new Error(`${target.name}: the editor did not become editable and synced within 15 s`);
  return {
    navigation,
    text: probe.elementPaint ?? probe.frameAfterText,
    textSource: probe.elementPaint !== null ? 'element timing' : 'frame after',
    frameAfterText: probe.frameAfterText,
    textInViewport: probe.textInViewport,
    editable: probe.editable,
    firstContentfulPaint: probe.firstContentfulPaint,
  };
}
