import { allow, approve, deny, type Verdict } from "../verdict.ts"

/**
 * Whether a jq program runs without approval. Placeholder over the old keyword scan; the grammar
 * that replaces it owns this file.
 */
export function jqFilterVerdict(filter: string): Verdict {
  if (/\$ENV\b|\benv\b/.test(filter)) return deny("jq $ENV/env reads the process environment")
  if (/\b(import|include|input_filename|\$__loc__)\b/.test(filter)) return approve("jq modules read files")
  return allow("jq filter")
}
