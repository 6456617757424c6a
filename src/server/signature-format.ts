/**
 * The one spelling of an approval signature, `v2.<issuedAtSeconds>.<base64url MAC>`.
 *
 * Strict on purpose (findings R14): `Number("0179…")` ignores leading zeros and base64url
 * decoding ignores the two unused low bits of a 32-byte MAC's 43rd character, so a lenient
 * parser accepted 12 spellings of one approval and the single-use set, keyed by the string,
 * let each of them run. Here the time has no leading zero and the MAC must re-encode to exactly
 * the characters presented: every accepted string is the canonical form of its contents.
 */
const SIGNATURE = /^v2\.(0|[1-9]\d{0,11})\.([A-Za-z0-9_-]{43})$/

export type ParsedSignature = { issuedAt: number; mac: Buffer }

export function parseSignature(signature: string): ParsedSignature | undefined {
  const match = SIGNATURE.exec(signature)
  if (!match) return undefined
  const encoded = match[2] as string
  const mac = Buffer.from(encoded, "base64url")
  if (mac.toString("base64url") !== encoded) return undefined
  return { issuedAt: Number(match[1]), mac }
}

/** The key of the single-use set: rebuilt from the parsed contents, never the presented string. */
export function canonicalSignature(parsed: ParsedSignature): string {
  return `v2.${parsed.issuedAt}.${parsed.mac.toString("base64url")}`
}
