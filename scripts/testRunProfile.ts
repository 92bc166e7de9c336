/**
 * `npm test -- --profile`: where a run's time went. Every test file's process writes one line at
 * exit (scripts/testProcessUsage.ts: wall time, its CPU time and its children's); the machine's
 * busy and idle time come from /proc/stat around the run. Printed at the end: per kind (unit,
 * database, HTTP, Chromium) the files, their slot time and CPU time, and how much of the
 * machine's CPU went elsewhere (Postgres, the runner, anything else running).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, TEST_KINDS, type TestFileTraits } from './testFiles.ts';

export interface ProcessUsage {
  file: string;
  wallMs: number;
  cpuMs: number;
  childCpuMs: number;
  assertions: number;
}

/** The machine's CPU time so far, in seconds, over all cores: [busy, idle]. */
export function machineCpuSeconds(): [number, number] {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = fields as [number, number, number, number, number, number, number, number];
  return [(user + nice + system + irq + softirq + steal) / 100, (idle + iowait) / 100];
}

export function readUsage(file: string): ProcessUsage[] {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as ProcessUsage)
    .map((usage) => ({ ...usage, file: path.relative(ROOT, usage.file) }));
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(0)} s`;

/** The table printed after a profiled run (docs/testing.md shows one). */
export function describeProfile(usage: readonly ProcessUsage[], traits: ReadonlyMap<string, TestFileTraits>, machine: { busy: number; idle: number; wall: number }): string {
  const rows = ['| kind | files | slot time | CPU of the files | CPU of their children | assertions |', '|---|---|---|---|---|---|'];
  for (const kind of TEST_KINDS) {
    const ofKind = usage.filter((entry) => traits.get(entry.file)?.kind === kind);
    if (ofKind.length === 0) continue;
    const sum = (pick: (entry: ProcessUsage) => number) => ofKind.reduce((total, entry) => total + pick(entry), 0);
    rows.push(`| ${kind} | ${ofKind.length} | ${seconds(sum((entry) => entry.wallMs))} | ${seconds(sum((entry) => entry.cpuMs))} | ${seconds(sum((entry) => entry.childCpuMs))} | ${sum((entry) => entry.assertions)} |`);
  }
  const filesCpu = usage.reduce((total, entry) => total + entry.cpuMs + entry.childCpuMs, 0) / 1000;
  const capacity = machine.busy + machine.idle;
  return [
    ...rows,
    '',
    `machine: ${machine.wall.toFixed(0)} s wall, ${machine.busy.toFixed(0)} s of CPU busy out of ${capacity.toFixed(0)} (${((100 * machine.busy) / capacity).toFixed(0)} %);`,
    `  the test files' processes and their children: ${filesCpu.toFixed(0)} s; everything else (Postgres, the runner, other load): ${(machine.busy - filesCpu).toFixed(0)} s`,
  ].join('\n');
}
