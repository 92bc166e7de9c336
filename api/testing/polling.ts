/**
 * The one way tests, benches and soaks wait for something that happens elsewhere (a socket
 * synced, a notification arrived, a process stopped): ask `probe` again and again until it
 * answers, and fail with what was awaited once `timeoutMs` passes. Prefer it to a fixed sleep
 * whenever there is something to ask.
 */

export interface PollOptions {
  /** Pause between two probes; small for in-process state, larger when a probe is costly (a child process, HTTP). */
  intervalMs?: number;
  /** Treat a probe that throws as "not yet" (e.g. a server that is still starting refuses connections). */
  retryOnError?: boolean;
}

/** What a probe answers while the awaited thing has not happened. */
type NotYet = undefined | null | false;

/**
 * Resolves with the first answer of `probe` that is not `undefined`, `null` or `false`;
 * rejects naming `what` when none came within `timeoutMs`. The probe runs at least once.
 */
export async function waitFor<T>(probe: () => T | NotYet | Promise<T | NotYet>, timeoutMs = 5_000, what = 'the condition', options: PollOptions = {}): Promise<T> {
  const intervalMs = options.intervalMs ?? 10;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let answer: T | NotYet;
    try {
      answer = await probe();
    } catch (error) {
      if (!options.retryOnError) throw error;
      answer = undefined;
    }
    if (answer !== undefined && answer !== null && answer !== false) return answer;
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
