import { VERSION } from "../../version.ts"
import {
  type GuardedTarget,
  guardUrl,
  normaliseHost,
  type Resolver,
  SsrfError,
  type SsrfPolicy,
} from "./ssrf.ts"

export type FetchPageOptions = {
  policy: SsrfPolicy
  /** Extra headers per `host` or `host:port`; sent only on hops to that host. */
  headers: Record<string, Record<string, string>>
  /** Bytes read from the body at most; the rest is not downloaded. */
  maxBytes: number
  maxRedirects: number
  signal: AbortSignal
  resolve?: Resolver
}

export type FetchedPage = {
  /** The URL of the last hop (after redirects). */
  url: string
  status: number
  statusText: string
  contentType: string
  body: string
  /** True when the body was cut at `maxBytes`. */
  cut: boolean
  redirects: number
}

/** A refusal or failure with a message for the model (not an infrastructure fault). */
export class FetchPageError extends Error {
  constructor(message: string) {
    super(message)
    this.name = "FetchPageError"
  }
}

const TEXT_TYPES =
  /^(text\/|application\/(json|xml|xhtml\+xml|ld\+json|javascript|x-yaml|yaml|[\w.+-]+\+(json|xml)))/

/**
 * GETs a page through the SSRF guard. Redirects are followed by hand so each hop is checked again
 * and headers for one host never follow a redirect to another; each hop connects to the address
 * the guard validated (see ssrf.ts).
 */
export async function fetchPage(url: string, options: FetchPageOptions): Promise<FetchedPage> {
  let current: URL | string = url
  for (let hop = 0; ; hop++) {
    const target = await guardUrl(current, options.policy, options.signal, options.resolve)
    const response = await send(target, options)
    const location = response.headers.get("location")
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel()
      if (hop >= options.maxRedirects) {
        throw new FetchPageError(
          `Too many redirects (more than ${options.maxRedirects}); last one to ${location}.`,
        )
      }
      try {
        current = new URL(location, target.url)
      } catch {
        throw new FetchPageError(`Redirect to an invalid URL: ${location.slice(0, 200)}`)
      }
      continue
    }
    const contentType = response.headers.get("content-type") ?? ""
    const mediaType = contentType.split(";")[0]?.trim().toLowerCase() ?? ""
    if (mediaType && !TEXT_TYPES.test(mediaType)) {
      await response.body?.cancel()
      throw new FetchPageError(
        `Refused content type ${mediaType} from ${target.url.href}: only text pages are read.`,
      )
    }
    const { bytes, cut } = await readCapped(response, options.maxBytes)
    if (!mediaType && looksBinary(bytes)) {
      throw new FetchPageError(`Refused ${target.url.href}: no content type and the body looks binary.`)
    }
    return {
      url: target.url.href,
      status: response.status,
      statusText: response.statusText,
      contentType: mediaType,
      body: decode(bytes, contentType),
      cut,
      redirects: hop,
    }
  }
}

async function send(target: GuardedTarget, options: FetchPageOptions): Promise<Response> {
  // Connect to the validated address; the name travels in Host and in the TLS server name, so
  // virtual hosts and certificate checks work as if the name had been resolved again.
  const byAddress = new URL(target.url.href)
  byAddress.hostname = target.family === 6 ? `[${target.address}]` : target.address
  byAddress.username = ""
  byAddress.password = ""
  const named = target.address !== target.hostname
  const headers: Record<string, string> = {
    "user-agent": `dupin/${VERSION} (fetch_webpage)`,
    accept: "text/html, text/plain;q=0.9, application/json;q=0.8, text/*;q=0.5",
    host: target.url.host,
    ...headersFor(target, options.headers),
  }
  try {
    return await fetch(byAddress, {
      method: "GET",
      headers,
      redirect: "manual",
      signal: options.signal,
      // A proxy from the environment would resolve the name itself and bypass the guard.
      proxy: false,
      ...(target.url.protocol === "https:" && named ? { tls: { serverName: target.hostname } } : {}),
    })
  } catch (error) {
    if (options.signal.aborted) throw error
    throw new FetchPageError(
      `Cannot fetch ${target.url.href}: ${error instanceof Error ? error.message : String(error)}`,
    )
  }
}

function headersFor(target: GuardedTarget, all: FetchPageOptions["headers"]): Record<string, string> {
  const out: Record<string, string> = {}
  const withPort = target.hostname.includes(":")
    ? `[${target.hostname}]:${target.port}`
    : `${target.hostname}:${target.port}`
  for (const [host, headers] of Object.entries(all)) {
    const key = host.trim().toLowerCase()
    if (normaliseHost(key) === target.hostname || key === withPort) Object.assign(out, headers)
  }
  return out
}

async function readCapped(
  response: Response,
  maxBytes: number,
): Promise<{ bytes: Uint8Array; cut: boolean }> {
  if (!response.body) return { bytes: new Uint8Array(), cut: false }
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  let cut = false
  while (true) {
    const { done, value } = await reader.read()
    if (done) break
    const room = maxBytes - size
    if (value.byteLength >= room) {
      // Stop downloading: a 10 GB page costs at most maxBytes. A body of exactly maxBytes counts
      // as cut too: finding out would mean reading on.
      chunks.push(value.subarray(0, room))
      size += room
      cut = true
      await reader.cancel()
      break
    }
    chunks.push(value)
    size += value.byteLength
  }
  const bytes = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.byteLength
  }
  return { bytes, cut }
}

function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 1024).includes(0)
}

function decode(bytes: Uint8Array, contentType: string): string {
  const charset = /charset=["']?([\w-]+)/i.exec(contentType)?.[1]
  try {
    return new TextDecoder((charset ?? "utf-8") as ConstructorParameters<typeof TextDecoder>[0]).decode(bytes)
  } catch {
    return new TextDecoder("utf-8").decode(bytes)
  }
}

export { SsrfError }
