// In agent/ because the engine's decision check quotes caller values too, not only the HTTP validators.
/** Characters of a caller's value repeated in an error message. */
const MAX_ECHO = 80

/**
 * A caller-supplied value as it may appear in an error `detail`: cut, so a 5 MB key or id is not
 * sent straight back (and written to logs) in the refusal.
 */
export function echo(value: unknown): string {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? String(value))
  return text.length > MAX_ECHO ? `${text.slice(0, MAX_ECHO)}…` : text
}

export function echoList(values: readonly unknown[], max = 10): string {
  const shown = values.slice(0, max).map(echo).join(", ")
  return values.length > max ? `${shown} and ${values.length - max} more` : shown
}
