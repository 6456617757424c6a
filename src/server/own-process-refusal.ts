import { RequestError } from "../errors.ts"
import { isOwnProcessPeer } from "./own-process-peer.ts"

/** What a refused client is told (it is a tool or MCP server: the model may read it). */
export const OWN_PROCESS_REFUSED =
  "Requests from processes dupin started (tools, MCP servers and their children) are refused: they must not use dupin's API."

/** The part of Bun's server the check needs (Elysia's `server` in a request's context). */
type PeerSource = {
  readonly hostname?: string | undefined
  readonly port?: number | undefined
  requestIP(request: Request): { address: string; port: number } | null
}

/**
 * Throws a 401 when the request comes from one of dupin's own descendants (findings R8). Run only
 * when no auth token is set: a token is the proof a person's client sent the request (tools
 * never see it), and loopback alone is not. Requests that arrive through the header guard's unix
 * socket carry no address here; the guard checked their connection when it opened.
 */
export function refuseOwnProcess(server: PeerSource | null, request: Request): void {
  const peer = server?.requestIP(request)
  if (!peer || !server?.port || peer.port === 0) return
  const local = { address: server.hostname ?? "", port: server.port }
  if (isOwnProcessPeer({ address: peer.address, port: peer.port }, local)) {
    throw new RequestError(OWN_PROCESS_REFUSED, { kind: "auth" })
  }
}
