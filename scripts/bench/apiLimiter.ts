/**
 * Part (d) of `npm run bench:api`: the per-token rate limiter's share of a REST read (target
 * ≤ 5 %). The limiter counts each request in the statement that looks the token up
 * (api/auth/accessTokens.ts `checkAndCountAccessToken`), so what it adds to a request is that
 * statement's time less the same lookup without its counting part. Both are run in the API
 * process, alternating (apiBenchServer.ts `tokenChecks`); REST reads of the 5,000-word page one
 * at a time, in the same run, are the read it is a share of.
 *
 * - Target: one request at a time, (counted − lookup only) ÷ the mean REST read, client-side.
 * - For information: the same CPU difference in the API process against a read's CPU, and the
 *   wall difference with 10 concurrent calls (all on the one token's counter row, so the
 *   upserts queue on its row lock) against the mean read under 10 connections.
 */
import type { ApiBenchProcess } from './apiBenchProcess.ts';
import type { VariantTimings } from './apiBenchServer.ts';
import type { ApiBenchData } from './apiSeed.ts';
import type { Row } from './benchTable.ts';
import { bearer } from './apiRequests.ts';
import { loadRound, median } from './publicLoad.ts';

const SHARE_TARGET = 0.05;
const CONCURRENT_LANES = 10;

export interface LimiterOptions {
  /** One REST read of the measured page; resolves to its client-side time, ms. */
  restRead: () => Promise<number>;
  runs: number;
  warmup: number;
  seconds: number;
  connections: number;
  restPath: string;
}

const ms = (value: number) => `${value < 10 ? value.toFixed(3) : value.toFixed(1)} ms`;
const percent = (value: number) => `${(value * 100).toFixed(1)} %`;
const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const cpuPerCall = (variant: VariantTimings) => variant.cpuMicros / variant.latencies.length;

export async function limiterPart(api: ApiBenchProcess, data: ApiBenchData, options: LimiterOptions): Promise<{ rows: Row[]; notes: string[] }> {
  const rows: Row[] = [];
  const notes: string[] = [];
  process.stdout.write(`  … (d) rate limiter: ${options.runs} REST reads one at a time, ${options.runs} token statements with and without counting (alone and ${CONCURRENT_LANES} at a time), a ${options.seconds} s load round\n`);

  for (let run = 0; run < options.warmup; run += 1) await options.restRead();
  const before = await api.usage();
  const reads: number[] = [];
  for (let run = 0; run < options.runs; run += 1) reads.push(await options.restRead());
  const readCpuMicros = ((await api.usage()).cpuMicros - before.cpuMicros) / options.runs;
  const readMean = mean(reads);

  await api.tokenChecks(data.token.secret, options.warmup, 1);
  const alone = await api.tokenChecks(data.token.secret, options.runs, 1);
  const added = mean(alone.counted.latencies) - mean(alone.lookupOnly.latencies);
  const share = Math.max(0, added) / readMean;
  rows.push({
    target: '(d) rate limiter, share of a REST read',
    figure: `${ms(added)} per read`,
    baseline: `${ms(readMean)} mean read`,
    ratio: percent(share),
    goal: `≤ ${percent(SHARE_TARGET)}`,
    met: share <= SHARE_TARGET,
  });
  const cpuAdded = cpuPerCall(alone.counted) - cpuPerCall(alone.lookupOnly);
  rows.push({
    target: '(d) the same in API CPU (info)',
    figure: `${Math.round(cpuAdded)} µs per read`,
    baseline: `${Math.round(readCpuMicros)} µs per read`,
    ratio: percent(Math.max(0, cpuAdded) / readCpuMicros),
    goal: '–',
    met: true,
  });

  const round = await loadRound(api, { path: options.restPath, headers: bearer(data.token.secret), duration: options.seconds, connections: options.connections, expectStatus: 200 });
  const concurrent = await api.tokenChecks(data.token.secret, options.runs, CONCURRENT_LANES);
  const addedConcurrent = mean(concurrent.counted.latencies) - mean(concurrent.lookupOnly.latencies);
  const loadedMean = mean(round.latencies);
  rows.push({
    target: `(d) the same, ${CONCURRENT_LANES} at a time (info)`,
    figure: `${ms(addedConcurrent)} per read`,
    baseline: `${ms(loadedMean)} mean read, ${options.connections} conn.`,
    ratio: percent(Math.max(0, addedConcurrent) / loadedMean),
    goal: '–',
    met: round.unexpected === 0,
  });
  notes.push(
    `(d) the token statement alone, one at a time: counted mean ${ms(mean(alone.counted.latencies))} (median ${ms(median(alone.counted.latencies))}), lookup only mean ${ms(mean(alone.lookupOnly.latencies))} (median ${ms(median(alone.lookupOnly.latencies))}); API CPU ${Math.round(cpuPerCall(alone.counted))} µs against ${Math.round(cpuPerCall(alone.lookupOnly))} µs per call`,
    `(d) REST reads one at a time: mean ${ms(readMean)}, median ${ms(median(reads))}; ${CONCURRENT_LANES} at a time: counted mean ${ms(mean(concurrent.counted.latencies))}, lookup only ${ms(mean(concurrent.lookupOnly.latencies))}`,
  );
  return { rows, notes };
}
