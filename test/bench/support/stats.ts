/** Order statistics for benchmark samples. Medians and high percentiles, never means: one GC pause skews a mean. */

export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN
  const sorted = [...samples].sort((a, b) => a - b)
  const rank = (p / 100) * (sorted.length - 1)
  const lo = Math.floor(rank)
  const hi = Math.ceil(rank)
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (rank - lo)
}

export function median(samples: readonly number[]): number {
  return percentile(samples, 50)
}

/** A number with a fixed number of decimals, for tables. */
export function fmt(value: number, decimals = 2): string {
  return Number.isFinite(value) ? value.toFixed(decimals) : "n/a"
}

export function ratio(value: number, floor: number): number {
  return floor > 0 ? value / floor : Number.NaN
}
