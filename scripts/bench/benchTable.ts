/** The benches' result table: one line per target — measured, baseline, ratio, goal, met or MISSED. */

export interface Row {
  target: string;
  figure: string;
  baseline: string;
  ratio: string;
  goal: string;
  met: boolean;
}

export function printTable(rows: readonly Row[]): void {
  const header: Row = { target: 'target', figure: 'measured', baseline: 'baseline', ratio: 'ratio', goal: 'goal', met: true };
  const widths = (['target', 'figure', 'baseline', 'ratio', 'goal'] as const).map((key) => Math.max(...[header, ...rows].map((row) => row[key].length)));
  const line = (row: Row, verdict: string) => `  ${[row.target, row.figure, row.baseline, row.ratio, row.goal].map((cell, i) => cell.padEnd(widths[i]!)).join('  ')}  ${verdict}`;
  console.log(line(header, 'result'));
  for (const row of rows) console.log(line(row, row.met ? 'met' : 'MISSED'));
}
