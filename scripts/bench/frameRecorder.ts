/**
 * Frame figures for the graph's benchmark (scripts/bench/graph.ts): a script added
 * before the page's own records every animation frame's time and the main thread's long tasks
 * from navigation start, and when the drawing's canvas appears and its layout reports done.
 * The bench then asks for frames per second and the longest gap between frames in a window.
 * Playwright injects the script through the DevTools protocol, so the page's CSP does not apply.
 */
import type { Page } from 'playwright-core';

interface Recorded {
  frames: number[];
  longTasks: [number, number][];
  canvasAt: number | null;
  layoutDoneAt: number | null;
}

declare global {
  interface Window {
    __frameRecorder?: Recorded;
  }
}

export async function recordFrames(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const recorded: Recorded = { frames: [], longTasks: [], canvasAt: null, layoutDoneAt: null };
    window.__frameRecorder = recorded;
    const tick = (time: number) => {
      recorded.frames.push(time);
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) recorded.longTasks.push([entry.startTime, entry.duration]);
    }).observe({ type: 'longtask', buffered: true });
    new MutationObserver(() => {
      if (recorded.canvasAt === null && document.querySelector('.graph-canvas canvas')) recorded.canvasAt = performance.now();
      if (recorded.layoutDoneAt === null && document.querySelector('.graph-canvas[data-layout="done"]')) recorded.layoutDoneAt = performance.now();
    }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-layout'] });
  });
}

export interface FrameWindow {
  /** Frames per second between `from` and `to` (page clock, ms since navigation start). */
  fps: number;
  /** The longest time between two frames in the window, ms. */
  longestGap: number;
  /** Main-thread tasks over 50 ms that started in the window, and the longest of them, ms. */
  longTasks: number;
  longestTask: number;
}

export async function frameWindow(page: Page, from: number, to: number): Promise<FrameWindow> {
  const recorded = await page.evaluate(() => window.__frameRecorder!);
  const inside = recorded.frames.filter((time) => time >= from && time <= to);
  const edges = [from, ...inside, to];
  let longestGap = 0;
  for (let index = 1; index < edges.length; index += 1) longestGap = Math.max(longestGap, edges[index]! - edges[index - 1]!);
  const tasks = recorded.longTasks.filter(([start]) => start >= from && start <= to);
  return {
    fps: Math.round((inside.length / Math.max(1, to - from)) * 10_000) / 10,
    longestGap: Math.round(longestGap),
    longTasks: tasks.length,
    longestTask: Math.round(Math.max(0, ...tasks.map(([, duration]) => duration))),
  };
}

export async function milestones(page: Page): Promise<{ canvasAt: number | null; layoutDoneAt: number | null; now: number }> {
  return page.evaluate(() => ({ canvasAt: window.__frameRecorder!.canvasAt, layoutDoneAt: window.__frameRecorder!.layoutDoneAt, now: performance.now() }));
}

export const describeWindow = (window: FrameWindow): string =>
  `${window.fps} frames/s, longest gap ${window.longestGap} ms, ${window.longTasks} long tasks (longest ${window.longestTask} ms)`;

/** How many User Timing measures of this name started in the window, their mean and longest duration, ms. */
export async function measureFigures(page: Page, name: string, from: number, to: number): Promise<string> {
  const durations = await page.evaluate(
    ({ name, from, to }) =>
      performance
        .getEntriesByName(name, 'measure')
        .filter((entry) => entry.startTime >= from && entry.startTime <= to)
        .map((entry) => entry.duration),
    { name, from, to },
  );
  if (durations.length === 0) return `no ${name}`;
  const mean = durations.reduce((sum, duration) => sum + duration, 0) / durations.length;
  return `${durations.length} × ${name} (mean ${Math.round(mean)} ms, longest ${Math.round(Math.max(...durations))} ms)`;
}
