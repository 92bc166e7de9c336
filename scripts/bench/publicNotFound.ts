/**
 * Phase (f) of `npm run bench:public`: the public URL of an existing private page against a
 * missing page's in the same pond, requested strictly alternately (order flipped each pair)
 * on one keep-alive connection. Both answer 404; their medians must be within 10 % of each
 * other, or the 404 tells whether a private page exists (issue 34, finding 4).
 */
import { performance } from 'node:perf_hooks';
import type { Row } from './benchTable.ts';
import { fetchOnce, median, percentile } from './publicLoad.ts';
import type { PublicBenchData } from './publicSeed.ts';
import type { BenchServer } from './publicServers.ts';

const PAIRS = Number(process.env.BENCH_PUBLIC_NOT_FOUND_PAIRS ?? 2_000);
const WARMUP_PAIRS = 100;

async function timed(api: BenchServer, path: string): Promise<number> {
  const at = performance.now();
  const response = await fetchOnce(api.origin, path);
  const elapsed = performance.now() - at;
  if (response.status !== 404) throw new Error(`${path} answered ${response.status}, not 404`);
  return elapsed;
}

export async function privateVersusMissing(api: BenchServer, data: PublicBenchData, rows: Row[], ms: (value: number) => string): Promise<void> {
  const { privatePath, missingPath } = data.hidden;
  const hidden: number[] = [];
  const missing: number[] = [];
  for (let pair = 0; pair < WARMUP_PAIRS + PAIRS; pair += 1) {
    const privateFirst = pair % 2 === 0;
    const first = await timed(api, privateFirst ? privatePath : missingPath);
    const second = await timed(api, privateFirst ? missingPath : privatePath);
    if (pair < WARMUP_PAIRS) continue;
    hidden.push(privateFirst ? first : second);
    missing.push(privateFirst ? second : first);
  }
  const ratio = median(hidden) / median(missing);
  const p95 = (values: number[]) => percentile([...values].sort((a, b) => a - b), 0.95);
  rows.push({
    target: `(f) 404: existing private vs missing page, median of ${PAIRS}`,
    figure: `${ms(median(hidden))} (p95 ${ms(p95(hidden))})`,
    baseline: `${ms(median(missing))} (p95 ${ms(p95(missing))})`,
    ratio: ratio.toFixed(2),
    goal: '0.9–1.1×',
    met: ratio >= 0.9 && ratio <= 1.1,
  });
}
