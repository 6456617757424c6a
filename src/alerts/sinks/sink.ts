import type { Investigation } from "../../store/investigation.ts"

/** Where a finished investigation is sent. `send` resolves with the HTTP status it got. */
export type Sink = {
  /** The name in `deliveries` (never the URL: a Slack webhook URL is a secret). */
  name: string
  type: "webhook" | "slack"
  send(investigation: Investigation, signal: AbortSignal): Promise<number>
}

/** The link back to an investigation when `server.public_url` is set. */
export function investigationLink(publicUrl: string | undefined, id: string): string | undefined {
  return publicUrl ? `${publicUrl}/api/investigations/${encodeURIComponent(id)}` : undefined
}

/** POSTs JSON; resolves with the status, so the caller decides what counts as delivered. */
export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<number> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", "user-agent": "dupin", ...headers },
    body: JSON.stringify(body),
    signal,
    redirect: "error",
  })
  // Drained so the connection is reused; capped, because nobody reads it.
  await response.body?.cancel().catch(() => undefined)
  return response.status
}
