/**
 * A second test reporter for `npm test`: once the run ends, the test files that held a
 * concurrency slot longest, so a CI run that nears its time budget says where the time went.
 * A file's time is from its being taken from the queue to its last event as the runner
 * received them (its process's teardown after the last test is not counted).
 */
import { relative } from 'node:path';

interface TestEvent {
  type: string;
  data?: { file?: string };
}

const SHOWN = 15;

export default async function* slowestTestFiles(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const spans = new Map<string, { first: number; last: number }>();
  for await (const event of source) {
    const file = event.data?.file;
    // The runner queues every file at the start: a file's time begins when it is taken from the queue.
    if (!file || event.type === 'test:enqueue') continue;
    const now = performance.now();
    const span = spans.get(file);
    if (span) span.last = now;
    else spans.set(file, { first: now, last: now });
  }
  const slowest = [...spans].map(([file, span]) => ({ file: relative(process.cwd(), file), seconds: (span.last - span.first) / 1000 })).sort((a, b) => b.seconds - a.seconds);
  const total = slowest.reduce((sum, entry) => sum + entry.seconds, 0);
  yield `\nslowest test files (${slowest.length} files, ${total.toFixed(0)} s of slot time in all):\n`;
  for (const entry of slowest.slice(0, SHOWN)) yield `  ${entry.seconds.toFixed(1).padStart(7)} s  ${entry.file}\n`;
}
