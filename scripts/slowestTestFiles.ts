/**
 * A second test reporter for `npm test`: once the run ends, the test files that held a
 * concurrency slot longest, so a CI run that nears its time budget says where the time went.
 * With process isolation the runner reports each file as a test of its own once its process
 * ends (`test:complete`, named after the file, its duration the process's): those are read.
 *
 * The durations are also kept (scripts/testFiles.ts, DURATIONS_FILE, merged with the ones
 * kept before), so the next run starts the longest files first; not from a run with a name
 * pattern or another runner flag, whose durations are not the files' own.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { DURATIONS_FILE, KEEP_DURATIONS_VARIABLE, readDurations } from './testFiles.ts';

interface TestEvent {
  type: string;
  data?: { file?: string; name?: string; nesting?: number; details?: { duration_ms?: number } };
}

const SHOWN = 15;

function keepDurations(seconds: ReadonlyMap<string, number>): void {
  const kept = readDurations([DURATIONS_FILE]);
  for (const [file, time] of seconds) kept.set(file, Math.round(time * 10) / 10);
  try {
    mkdirSync(dirname(DURATIONS_FILE), { recursive: true });
    writeFileSync(DURATIONS_FILE, `${JSON.stringify(Object.fromEntries([...kept].sort()), null, 1)}\n`);
  } catch {
    // no place to keep them: the next run only starts in another order
  }
}

export default async function* slowestTestFiles(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const seconds = new Map<string, number>();
  for await (const event of source) {
    const { file, name, nesting, details } = event.data ?? {};
    if (event.type !== 'test:complete' || nesting !== 0 || !file || !name || details?.duration_ms === undefined) continue;
    const path = relative(process.cwd(), file);
    // The file's own entry, not one of its top-level tests.
    if (name === path || name === file) seconds.set(path, details.duration_ms / 1000);
  }
  if (process.env[KEEP_DURATIONS_VARIABLE]) keepDurations(seconds);
  const slowest = [...seconds].map(([file, time]) => ({ file, time })).sort((a, b) => b.time - a.time);
  const total = slowest.reduce((sum, entry) => sum + entry.time, 0);
  yield `\nslowest test files (${slowest.length} files, ${total.toFixed(0)} s of slot time in all):\n`;
  for (const entry of slowest.slice(0, SHOWN)) yield `  ${entry.time.toFixed(1).padStart(7)} s  ${entry.file}\n`;
}
