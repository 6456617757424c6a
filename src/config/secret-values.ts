/**
 * The secrets a Config names, by value, for redact-values.ts: provider keys (the config's own and
 * every `*_API_KEY`-like variable of the environment, so a key pasted into a question is hidden
 * even when it has no known shape), the server's token and approval secret.
 */
import { looksSecret } from "../redact-values.ts"
import { type Env, expandEnv } from "./env.ts"
import type { ModelEntry } from "./schema.ts"

export function configuredSecretValues(
  env: Env,
  keys: ReadonlyArray<string | null | undefined>,
  modelList: Readonly<Record<string, ModelEntry>> | undefined,
  serverSecrets: readonly string[],
): string[] {
  const values: string[] = [...serverSecrets]
  for (const [name, value] of Object.entries(env)) {
    // Names only: a long value of an ordinary variable (a path, a hash in PS1) is not a secret.
    if (value && looksSecret(name, "") && !name.startsWith("DUPIN_P_")) values.push(value)
  }
  for (const key of [...keys, ...Object.values(modelList ?? {}).map((e) => e.api_key)]) {
    if (!key) continue
    try {
      values.push(expandEnv(key, env, "api_key"))
    } catch {
      // An unset variable: reported when the model is used; nothing to hide yet.
    }
  }
  return values
}
