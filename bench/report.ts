/** A plain-text table: one row per measurement, one column per engine configuration. */
export interface Row {
  metric: string;
  values: Record<string, string>;
  target?: string;
}

export function printTable(columns: string[], rows: Row[]): void {
  const header = ['metric', ...columns, 'target'];
  const lines = rows.map((row) => [row.metric, ...columns.map((c) => row.values[c] ?? '-'), row.target ?? '']);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const format = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  console.log(format(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const line of lines) console.log(format(line));
}

export const us = (n: number) => `${n.toFixed(0)} us`;
export const ratio = (n: number) => `${n.toFixed(2)}x`;
export const perSecond = (n: number) => `${n.toFixed(0)}/s`;
