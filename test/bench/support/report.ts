/** The shape every benchmark reports, so the runner can write one RESULTS.md. */

export type Target = {
  claim: string
  /** What was measured, formatted. */
  measured: string
  target: string
  met: boolean
}

export type BenchReport = {
  name: string
  /** One paragraph: what was measured and how. */
  method: string
  table: { head: string[]; rows: string[][] }
  targets: Target[]
  notes?: string[]
  /** The bench could not run (missing prerequisite); why. */
  skipped?: string
}

/** Bench scripts print their report as the last stdout line, prefixed, for the runner. */
export const REPORT_PREFIX = "BENCH_REPORT "

export function emit(report: BenchReport): void {
  process.stdout.write(`\n${REPORT_PREFIX}${JSON.stringify(report)}\n`)
}
