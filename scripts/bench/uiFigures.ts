/** What the browser benches (bench:ui, bench:editor) print: medians with p95, sizes, progress lines. */
import { percentile } from './publicLoad.ts';

export interface Figures {
  median: number;
  p95: number;
}

export const ms = (value: number) => `${Math.round(value)} ms`;
export const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

export const figuresOf = (values: readonly number[]): Figures => {
  const sorted = [...values].sort((a, b) => a - b);
  return { median: percentile(sorted, 0.5), p95: percentile(sorted, 0.95) };
};

export const show = (figures: Figures) => `${ms(figures.median)} (p95 ${ms(figures.p95)})`;

/** Prints "… label" now; the returned function ends the line with the seconds it took. */
export function started(label: string): () => void {
  const at = Date.now();
  process.stdout.write(`  … ${label}`);
  return () => process.stdout.write(` (${((Date.now() - at) / 1000).toFixed(1)} s)\n`);
}
