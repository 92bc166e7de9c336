/**
 * The V8 flags `npm start` runs every service with (scripts/start.ts), and the public bench
 * its API process with, so the bench measures what runs.
 *
 * `--max-semi-space-size=16`: on Node 24 V8 lets the young generation grow to 128 MB (two
 * 64 MB semi-spaces) under a steady allocation rate, and RSS keeps what it touched. A service
 * that generates public documents allocates at such a rate; measured over 10,000 on-demand
 * generations (`npm run bench:public`, (e)), the young generation alone took 64 MB more, while
 * throughput with 16 MB semi-spaces was the same. An operator who sets the flag in
 * `NODE_OPTIONS` keeps their value (command-line flags would otherwise win).
 */
export function serviceNodeFlags(nodeOptions: string | undefined = process.env.NODE_OPTIONS): string[] {
  return nodeOptions?.includes('--max-semi-space-size') ? [] : ['--max-semi-space-size=16'];
}
