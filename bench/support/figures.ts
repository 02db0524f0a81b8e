// Each bench section prints its own tables and hands its headline figures to scripts/bench.mjs,
// which puts them side by side in bench/results.md. Sections run as separate processes, so the
// figures travel as one JSON file per section in the folder BENCH_FIGURES names (when it is set).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type Figures = Record<string, number | string | undefined>;

export function recordFigures(section: string, figures: Figures): void {
  const dir = process.env.BENCH_FIGURES;
  if (dir) writeFileSync(join(dir, `${section}.json`), `${JSON.stringify(figures, null, 2)}\n`);
}
