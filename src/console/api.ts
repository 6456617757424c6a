import { readSse, type SseEvent } from "./sse.ts"

/**
 * The console is a client of the HTTP API like any other (CONTRACT §5). The token lives in
 * sessionStorage only: it dies with the tab and is never written to disk by the page.
 */
const TOKEN_KEY = "dupin.token"

/** The API answered 401: the page asks for a token, then retries. */
export class Unauthorized extends Error {}

export function saveToken(token: string): void {
  sessionStorage.setItem(TOKEN_KEY, token)
}

/** A token is kept: a 401 now means the server refused it, not that none was sent. */
export function hasToken(): boolean {
  return Boolean(sessionStorage.getItem(TOKEN_KEY))
}

function headers(): Record<string, string> {
  const token = sessionStorage.getItem(TOKEN_KEY)
  return { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) }
}

export async function fetchModels(): Promise<string[]> {
  const res = await fetch("/api/model", { headers: headers() })
  if (res.status === 401) throw new Unauthorized()
  if (!res.ok) return []
  const body = (await res.json()) as { model_name?: unknown }
  return Array.isArray(body.model_name) ? body.model_name.filter((m) => typeof m === "string") : []
}

/**
 * Posts a chat request with `stream: true` and yields its events. A refusal before the stream
 * opens (400, 413, 502…) comes back as the same `error` event the stream would carry.
 */
export async function* chat(body: Record<string, unknown>, signal: AbortSignal): AsyncGenerator<SseEvent> {
  const res = await fetch("/api/chat", {
    method: "POST",
    headers: headers(),
    body: JSON.stringify({ ...body, stream: true, stream_text: true }),
    signal,
  })
  if (res.status === 401) throw new Unauthorized()
  if (!res.ok || !res.body) {
    const detail = (await res.json().catch(() => ({}))) as { detail?: string; error_code?: number }
    yield {
      event: "error",
      data: { msg: detail.detail ?? `HTTP ${res.status}`, error_code: detail.error_code ?? res.status },
    }
    return
  }
  yield* readSse(res.body)
}

/** `GET /api/investigations` answered 404: this server does not run alert investigations. */
export class AlertsDisabled extends Error {}

/** The list, newest first (CONTRACT §10): summaries, no history or tool output. */
export async function listInvestigations(status: string): Promise<unknown> {
  return await getJson(
    `/api/investigations?limit=100${status ? `&status=${encodeURIComponent(status)}` : ""}`,
    true,
  )
}

/** One investigation's full record. */
export async function getInvestigation(id: string): Promise<unknown> {
  return await getJson(`/api/investigations/${encodeURIComponent(id)}`, false)
}

async function getJson(path: string, isList: boolean): Promise<unknown> {
  const res = await fetch(path, { headers: headers() })
  if (res.status === 401) throw new Unauthorized()
  // Without `alerts.enabled` the route does not exist; a missing record is a 404 with a detail.
  if (res.status === 404 && isList) throw new AlertsDisabled()
  if (!res.ok) {
    const detail = (await res.json().catch(() => ({}))) as { detail?: string }
    throw new Error(detail.detail ?? `HTTP ${res.status}`)
  }
  return await res.json()
}
