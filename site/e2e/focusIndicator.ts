/**
 * What axe cannot see: whether a keyboard user can tell where the focus is. Walks the page
 * with Tab and requires of every element it reaches an outline of at least 2 px whose colour
 * stands out 3:1 against the background around it (WCAG 2.4.7 and 1.4.11; the site draws its
 * focus ring as an outline, see `:focus-visible` in site/src/styles/global.css).
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';

/** More stops than any screen has; the walk ends earlier when the focus comes round again. */
const MAX_TAB_STOPS = 60;

interface FocusStop {
  /** The element's place in the document, to notice when the walk comes round again. */
  index: number;
  label: string;
  outlineStyle: string;
  outlineWidth: number;
  outlineColor: string;
  /** The first opaque background among the ancestors: the ring sits outside the element. */
  background: string;
}

/** Relative luminance of a computed `rgb(…)`/`rgba(…)` colour, as WCAG defines it. */
function luminance(color: string): number {
  const channels = color.match(/[\d.]+/g)?.slice(0, 3).map(Number);
  assert.ok(channels && channels.length === 3, `not an rgb colour: ${color}`);
  const [r, g, b] = channels.map((value) => {
    const c = value / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

async function focusStop(page: Page): Promise<FocusStop | null> {
  return page.evaluate(() => {
    const element = document.activeElement;
    if (!(element instanceof HTMLElement) || element === document.body) return null;
    let background = 'rgb(255, 255, 255)';
    for (let ancestor = element.parentElement; ancestor; ancestor = ancestor.parentElement) {
      const color = getComputedStyle(ancestor).backgroundColor;
      if (color !== 'transparent' && !/^rgba\(.*,\s*0\)$/.test(color)) {
        background = color;
        break;
      }
    }
    const style = getComputedStyle(element);
    const name = element.getAttribute('aria-label') ?? element.textContent?.trim() ?? '';
    return {
      index: Array.prototype.indexOf.call(document.querySelectorAll('*'), element),
      label: `<${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''}> ${name.slice(0, 40)}`,
      outlineStyle: style.outlineStyle,
      outlineWidth: parseFloat(style.outlineWidth),
      outlineColor: style.outlineColor,
      background,
    };
  });
}

/** Tabs through the whole page; fails naming every stop without a clear focus ring. */
export async function expectVisibleFocus(page: Page, screen: string): Promise<void> {
  // Tab starts after the element focused last; focusing a stand-in at the top of the body and
  // removing it moves that starting point to the top, so the walk begins at the skip link.
  await page.evaluate(() => {
    const start = document.createElement('span');
    start.tabIndex = -1;
    document.body.prepend(start);
    start.focus();
    start.remove();
  });
  const seen = new Set<number>();
  const problems: string[] = [];
  for (let step = 0; step < MAX_TAB_STOPS; step++) {
    await page.keyboard.press('Tab');
    const stop = await focusStop(page);
    if (!stop || seen.has(stop.index)) break;
    seen.add(stop.index);
    if (stop.outlineStyle === 'none' || stop.outlineWidth < 2) {
      problems.push(`${stop.label}: no focus ring (outline ${stop.outlineStyle} ${stop.outlineWidth}px)`);
      continue;
    }
    const ratio = contrastRatio(stop.outlineColor, stop.background);
    if (ratio < 3) problems.push(`${stop.label}: focus ring ${stop.outlineColor} on ${stop.background} is ${ratio.toFixed(2)}:1, below 3:1`);
  }
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  assert.ok(seen.size > 0, `${screen}: Tab reached nothing`);
  assert.deepEqual(problems, [], `${screen}: focus not visible`);
}
