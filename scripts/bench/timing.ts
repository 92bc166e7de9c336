/** Timing for benchmarks: medians of alternating runs, so load drift hits every case alike. */

export interface Timing {
  median: number;
  p95: number;
}

/**
 * Times several tasks in alternation (a, b, c, a, b, c, …) after a warm-up, so drift in the
 * machine's load and garbage left by one task weigh on all of them alike. Milliseconds.
 */
export async function measureAlternating<K extends string>(tasks: Record<K, () => Promise<unknown>>, options: { warmup?: number; runs?: number } = {}): Promise<Record<K, Timing>> {
  const names = Object.keys(tasks) as K[];
  for (let i = 0; i < (options.warmup ?? 5); i += 1) for (const name of names) await tasks[name]();
  const samples = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<K, number[]>;
  for (let i = 0; i < (options.runs ?? 40); i += 1) {
    for (const name of names) {
      const started = process.hrtime.bigint();
      await tasks[name]();
      samples[name].push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  }
  return Object.fromEntries(
    names.map((name) => {
      const sorted = samples[name].sort((a, b) => a - b);
      return [name, { median: sorted[Math.floor(sorted.length / 2)]!, p95: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))]! }];
    }),
  ) as Record<K, Timing>;
}
