import { type Env, expandEnv } from "../../config/env.ts"
import { type Investigation, investigationWire } from "../../store/investigation.ts"
import { investigationLink, postJson, type Sink } from "./sink.ts"

/**
 * The generic webhook: the investigation record as JSON (the `GET /api/investigations/{id}` body,
 * plus `url` when `server.public_url` is set). URL and headers expand `{{ env.X }}` at each
 * delivery, so a token rotated in the environment needs no restart of the config.
 */
export function webhookSink(
  name: string,
  settings: { url: string; headers?: Record<string, string> | undefined },
  env: Env,
  publicUrl: string | undefined,
): Sink {
  return {
    name,
    type: "webhook",
    send: (investigation: Investigation, signal: AbortSignal) => {
      const url = expandEnv(settings.url, env, `alerts.sinks ${name}: url`)
      const headers = Object.fromEntries(
        Object.entries(settings.headers ?? {}).map(([k, v]) => [
          k,
          expandEnv(v, env, `alerts.sinks ${name}: headers.${k}`),
        ]),
      )
      const link = investigationLink(publicUrl, investigation.id)
      return postJson(
        url,
        { ...investigationWire(investigation), ...(link ? { url: link } : {}) },
        headers,
        signal,
      )
    },
  }
}
