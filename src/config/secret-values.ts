/**
 * The secrets a Config names, by value, for redact-values.ts. Shapes cannot find them all (a
 * Mistral or Azure key, a Postgres password, a Slack webhook's path have none), so every value the
 * operator handed dupin as a secret is hidden wherever it shows up again:
 *
 * - provider keys: the config's own and every credential-named variable of the environment, so a
 *   key pasted into a question is hidden even when it has no known shape;
 * - the server's token and approval secret;
 * - anywhere in the config's `toolsets:`, `mcp_servers:`, `store:` and `alerts:` (and in a toolset
 *   file's `config:`, through expandEnvDeep): a value under a credential-named key (`api_key`,
 *   `password`, `Authorization`, `webhook_url`, ...), a `{{ env.X }}` whose value looks like a
 *   token, and the password of a URL (`postgres://app:pw@db/app`).
 */
import { looksSecret } from "../redact-values.ts"
import type { Env } from "./env.ts"
import { envTemplateNames, replaceEnvTemplates } from "./env-template.ts"
import type { ModelEntry } from "./schema.ts"

/** The raw config sections walked for secrets (before their `{{ env.X }}` are expanded). */
export type SecretSections = {
  toolsets?: unknown
  mcpServers?: unknown
  store?: unknown
  alerts?: unknown
}

export function configuredSecretValues(
  env: Env,
  keys: ReadonlyArray<string | null | undefined>,
  modelList: Readonly<Record<string, ModelEntry>> | undefined,
  serverSecrets: readonly string[],
  sections: SecretSections = {},
): string[] {
  const values: string[] = [...serverSecrets]
  for (const [name, value] of Object.entries(env)) {
    // Names only: a long value of an ordinary variable (a path, a hash in PS1) is not a secret.
    if (value && looksSecret(name, "") && !name.startsWith("DUPIN_P_")) values.push(value)
  }
  for (const key of [...keys, ...Object.values(modelList ?? {}).map((e) => e.api_key)]) {
    if (!key) continue
    // An unset variable: reported when the model is used; nothing to hide yet.
    const value = expanded(key, env)
    if (value !== undefined) values.push(value)
  }
  for (const section of [sections.toolsets, sections.mcpServers, sections.store, sections.alerts])
    values.push(...secretsIn(section, env))
  return values
}

/**
 * Key names whose values are credentials. Matched on the whole key, so `token_ttl` or
 * `password_file` are not taken for the secret itself.
 */
const SECRET_KEY =
  /^(?:.*[_-])?(?:api[_-]?key|apikey|token|access[_-]?token|auth[_-]?token|password|passwd|secret|client[_-]?secret|private[_-]?key|credentials?|authorization|proxy-authorization|cookie|x-api-key|webhook[_-]?url|dsn)$/i

/**
 * The secret values inside one config value: a credential-named key's value, a `{{ env.X }}`
 * whose value looks like a token, a URL's password. `env` expands templates; a template whose
 * variable is unset is skipped (its use reports it).
 */
export function secretsIn(value: unknown, env: Env, key = ""): string[] {
  if (typeof value === "string") return secretsInString(value, env, key)
  if (Array.isArray(value)) return value.flatMap((v) => secretsIn(v, env, key))
  if (value && typeof value === "object")
    return Object.entries(value).flatMap(([k, v]) => secretsIn(v, env, k))
  return []
}

function secretsInString(raw: string, env: Env, key: string): string[] {
  const found: string[] = []
  for (const name of envTemplateNames(raw)) {
    const v = env[name]
    if (v && looksSecret(name, v)) found.push(v)
  }
  const value = expanded(raw, env)
  if (value === undefined) return found
  // `Bearer xyz` hides xyz too: a tool may print the token without its scheme.
  if (SECRET_KEY.test(key)) found.push(value, value.replace(/^(?:Bearer|Basic|Token)\s+/i, ""))
  found.push(...urlPassword(value))
  return found
}

/** `raw` with its `{{ env.X }}` replaced, or undefined when one is unset. */
function expanded(raw: string, env: Env): string | undefined {
  let unset = false
  const out = replaceEnvTemplates(raw, (name) => {
    const v = env[name]
    if (v === undefined) unset = true
    return v ?? ""
  })
  return unset ? undefined : out
}

/** The password of `scheme://user:password@host`, as written and decoded. */
function urlPassword(value: string): string[] {
  const m = /^[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:([^\s/@]+)@/i.exec(value)
  if (!m?.[1]) return []
  const raw = m[1]
  try {
    return [raw, decodeURIComponent(raw)]
  } catch {
    return [raw]
  }
}
