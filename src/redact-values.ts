/**
 * Configured secret values, redacted wherever they appear, whatever their shape: a provider key
 * pasted into a question (DeepSeek's and Mistral's keys have no shape a rule can tell from a
 * hash), a toolset's token echoed by `curl -v`, an MCP server's header in a log line. The shape
 * rules of redact.ts catch keys dupin was never told about; this list catches the ones it was.
 *
 * One list per process: the config that names the secrets is loaded before anything that could
 * print them, and a value, once known, stays hidden even after a reload.
 */

/** Shorter values are not hunted verbatim: they would hit ordinary words. */
export const MIN_SECRET_VALUE = 8

const values = new Set<string>()
/** Longest first, so a key that contains another is replaced whole. */
let ordered: string[] = []

export const REDACTED_VALUE = "[REDACTED]"

/** Adds values to hide from every tool result, log line and history entry from now on. */
export function addSecretValues(list: Iterable<string | null | undefined>): void {
  let added = false
  for (const value of list) {
    const v = value?.trim()
    if (!v || v.length < MIN_SECRET_VALUE || values.has(v)) continue
    values.add(v)
    added = true
  }
  if (added) ordered = [...values].sort((a, b) => b.length - a.length)
}

/** The known values, for a redaction that runs where this module's list is not (a worker). */
export function secretValues(): readonly string[] {
  return ordered
}

/** Every occurrence of a configured secret value replaced. */
export function redactSecretValues(text: string, list: readonly string[] = ordered): string {
  let out = text
  for (const value of list) if (out.includes(value)) out = out.replaceAll(value, REDACTED_VALUE)
  return out
}

/** Credential-like variable names: `GRAFANA_TOKEN`, `DB_PASSWORD`, `OPENAI_API_KEY`. */
const SECRET_NAME = /(TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIAL)/i

/**
 * Whether an operator's variable is a secret to hide: by its name, or by a value that looks like
 * a token (long, letters and digits, no spaces, no URL). A namespace or a URL handed to a toolset
 * must stay readable in its output.
 */
export function looksSecret(name: string, value: string): boolean {
  if (SECRET_NAME.test(name)) return true
  return (
    value.length >= 20 &&
    /[0-9]/.test(value) &&
    /[A-Za-z]/.test(value) &&
    /^[A-Za-z0-9_+/=.-]+$/.test(value) &&
    !value.includes("/")
  )
}
