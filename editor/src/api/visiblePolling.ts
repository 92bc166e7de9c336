/**
 * Calls `poll` every `intervalMs` while the tab is visible (the spec's 30 s for the unread
 * count and a page's comments; there is no push), at once when the tab comes back or the window regains focus, and
 * never while the tab is hidden, so a background tab costs the server nothing. A poll still
 * under way is not started again; a focus right after a poll (a tab switch fires both focus
 * and visibilitychange) does not poll twice.
 */

export interface PollingEnvironment {
  document: EventTarget & { readonly hidden: boolean };
  window: EventTarget;
  now: () => number;
}

export interface PollingOptions {
  intervalMs: number;
  /** A focus or a return to the tab sooner than this after the last poll does not poll again. */
  minGapMs?: number;
  /** Poll once right away (when visible). */
  immediately?: boolean;
  environment?: PollingEnvironment;
}

const DEFAULT_MIN_GAP_MS = 2_000;

/** Starts polling; the returned function stops it and removes its listeners. */
export function startVisiblePolling(poll: () => Promise<unknown> | void, options: PollingOptions): () => void {
  const environment = options.environment ?? { document, window, now: () => Date.now() };
  const minGapMs = options.minGapMs ?? DEFAULT_MIN_GAP_MS;
  let timer: ReturnType<typeof setInterval> | null = null;
  let running = false;
  let lastStarted = -Infinity;

  async function run(): Promise<void> {
    if (running) return;
    running = true;
    lastStarted = environment.now();
    try {
      await poll();
    } catch {
      // The caller shows its own failure; the next tick tries again.
    } finally {
      running = false;
    }
  }

  function stopTimer(): void {
    if (timer !== null) clearInterval(timer);
    timer = null;
  }

  function startTimer(): void {
    stopTimer();
    timer = setInterval(() => void run(), options.intervalMs);
  }

  // A poll now starts the interval afresh; without one, a running interval is left alone, so
  // focus moving in and out many times does not keep postponing the next poll.
  function resume(): void {
    if (environment.document.hidden) return;
    if (environment.now() - lastStarted >= minGapMs && !running) {
      void run();
      startTimer();
    } else if (timer === null) {
      startTimer();
    }
  }

  function onVisibilityChange(): void {
    if (environment.document.hidden) stopTimer();
    else resume();
  }

  environment.document.addEventListener('visibilitychange', onVisibilityChange);
  environment.window.addEventListener('focus', resume);
  if (!environment.document.hidden) {
    if (options.immediately) void run();
    startTimer();
  }

  return () => {
    stopTimer();
    environment.document.removeEventListener('visibilitychange', onVisibilityChange);
    environment.window.removeEventListener('focus', resume);
  };
}
