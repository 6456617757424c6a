/**
 * The allowed key an unknown one was most likely meant to be (`tempreature` → `temperature`,
 * `custom_toolset` → `custom_toolsets`), for config error messages. Only close matches: a guess
 * that is far off sends the operator looking in the wrong place.
 */
export function closestKey(key: string, allowed: readonly string[]): string | undefined {
  const lower = key.toLowerCase()
  let best: string | undefined
  let bestDistance = Number.POSITIVE_INFINITY
  for (const candidate of allowed) {
    const distance = editDistance(lower, candidate.toLowerCase())
    if (distance < bestDistance) {
      best = candidate
      bestDistance = distance
    }
  }
  const limit = Math.max(1, Math.min(3, Math.floor(key.length / 3)))
  return best !== undefined && bestDistance <= limit ? best : undefined
}

/** Levenshtein distance with adjacent transpositions counted as one edit (a common typo). */
function editDistance(a: string, b: string): number {
  const rows = a.length + 1
  const cols = b.length + 1
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  )
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      const row = d[i] as number[]
      const above = d[i - 1] as number[]
      let value = Math.min(above[j]! + 1, row[j - 1]! + 1, above[j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, (d[i - 2] as number[])[j - 2]! + 1)
      row[j] = value
    }
  }
  return (d[a.length] as number[])[b.length]!
}
