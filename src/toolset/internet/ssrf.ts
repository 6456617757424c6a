import { lookup } from "node:dns/promises"
import { raceAbort } from "../../abort.ts"
import { type AddressKind, classifyAddress, parseIpv4 } from "./address.ts"

/**
 * The SSRF guard: decides whether a URL the model chose may be fetched, and pins the address to
 * connect to.
 *
 * The host is resolved once (`dns.lookup`, every address) and refused if ANY address is off
 * limits: a name that resolves to one public and one metadata address must not get a coin flip.
 * The fetch then connects to the validated address itself (the URL's host replaced by the IP, the
 * `Host` header and TLS server name set to the original name), so a second resolution with a
 * different answer (DNS rebinding) never happens.
 */
export type SsrfPolicy = {
  /** Allow private ranges (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7). */
  allowPrivate: boolean
  /**
   * `host` or `host:port` entries allowed even when they resolve to a private address. Loopback
   * is allowed only for an exact `host:port` entry (a local test server); link-local, metadata,
   * unspecified and multicast addresses are never allowed.
   */
  allowedHosts: readonly string[]
  /**
   * When set, the only hosts that may be reached at all (`kubernetes.io`, `*.example.com` for any
   * name under example.com, or an IP literal); the checks above still apply to them. This limits
   * where a prompt-injected model can send data, which the address checks do not.
   */
  egressAllowlist?: readonly string[]
}

/** Where operators set the allowlist; named in refusals so the model can tell the user. */
export const EGRESS_ALLOWLIST_KEY = "toolsets.internet.config.egress_allowlist"
/** The longest DNS name (RFC 1035); anything longer is not a host. */
const MAX_HOST_CHARS = 253

export type ResolvedAddress = { address: string; family: number }
export type Resolver = (hostname: string, signal: AbortSignal) => Promise<ResolvedAddress[]>

/** A URL that passed the guard, and the address to connect to. */
export type GuardedTarget = {
  url: URL
  /** Lowercase, no brackets, no trailing dot. */
  hostname: string
  port: number
  address: string
  family: 4 | 6
}

/** The guard refused a URL. The message is written for the model. */
export class SsrfError extends Error {
  constructor(message: string) {
    super(message)
    this.name = "SsrfError"
  }
}

/** Names of cloud metadata services, refused before any lookup. */
const METADATA_NAMES = new Set([
  "metadata",
  "metadata.google.internal",
  "metadata.goog",
  "instance-data",
  "instance-data.ec2.internal",
  "metadata.azure.com",
  "metadata.tencentyun.com",
  "metadata.platformequinix.com",
])

const ALWAYS_REFUSED: Partial<Record<AddressKind, string>> = {
  metadata: "a cloud metadata address",
  "link-local": "a link-local address",
  unspecified: "an unspecified address",
  multicast: "a multicast address",
  reserved: "a reserved address",
  invalid: "not a valid address",
}

export const systemResolver: Resolver = async (hostname, signal) => {
  return await raceAbort(lookup(hostname, { all: true, verbatim: true }), signal, (s) => s.reason)
}

/** Checks one URL (every redirect hop goes through here again). Throws SsrfError. */
export async function guardUrl(
  raw: string | URL,
  policy: SsrfPolicy,
  signal: AbortSignal,
  resolve: Resolver = systemResolver,
): Promise<GuardedTarget> {
  const url = parseUrl(raw)
  const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80
  return { url, ...(await guardHost(url.hostname, port, policy, signal, resolve, redactUrl(url))) }
}

export type GuardedHost = Omit<GuardedTarget, "url">

/**
 * Checks one host and port (a URL's, or a TCP probe's) and returns the address to connect to.
 * `target` names it in messages. Throws SsrfError.
 */
export async function guardHost(
  host: string,
  port: number,
  policy: SsrfPolicy,
  signal: AbortSignal,
  resolve: Resolver = systemResolver,
  target = hostPort(normaliseHost(host), port),
): Promise<GuardedHost> {
  // The target is the model's text: a 1 MB URL is not echoed back whole.
  const label = target.length > 300 ? `${target.slice(0, 300)}…` : target
  const hostname = normaliseHost(host)
  if (!hostname) throw new SsrfError(`Refused ${label}: the URL has no host.`)
  if (hostname.length > MAX_HOST_CHARS) throw new SsrfError(`Refused ${label}: the host name is too long.`)
  if (METADATA_NAMES.has(hostname)) {
    throw new SsrfError(`Refused ${label}: ${hostname} is a cloud metadata service.`)
  }
  if (policy.egressAllowlist && !inAllowlist(policy.egressAllowlist, hostname)) {
    throw new SsrfError(
      `Refused ${label}: ${hostname} is not in ${EGRESS_ALLOWLIST_KEY}, the operator's list of hosts dupin may reach.`,
    )
  }

  const literal = isIpLiteral(hostname)
  let addresses: ResolvedAddress[]
  if (literal) {
    addresses = [{ address: hostname, family: hostname.includes(":") ? 6 : 4 }]
  } else {
    try {
      addresses = await resolve(hostname, signal)
    } catch (error) {
      if (signal.aborted) throw error
      throw new SsrfError(
        `Cannot resolve ${hostname}: ${error instanceof Error ? error.message : String(error)}`,
      )
    }
    if (addresses.length === 0) throw new SsrfError(`Cannot resolve ${hostname}: no addresses.`)
  }

  for (const { address } of addresses) {
    const kind = classifyAddress(address)
    const why = ALWAYS_REFUSED[kind]
    const resolved = literal ? "" : ` resolves to ${address},`
    if (why) throw new SsrfError(`Refused ${label}: ${hostname}${resolved} ${why}.`)
    if (kind === "loopback" && !allowsExact(policy, hostname, port)) {
      throw new SsrfError(`Refused ${label}: ${hostname}${resolved} a loopback address.`)
    }
    if (kind === "private" && !policy.allowPrivate && !allowsHost(policy, hostname, port)) {
      throw new SsrfError(
        `Refused ${label}: ${hostname}${resolved} a private address. The operator can allow it with allow_private or allowed_hosts.`,
      )
    }
  }
  const first = addresses[0]!
  return { hostname, port, address: stripBrackets(first.address), family: first.family === 6 ? 6 : 4 }
}

/** `*.example.com` matches names under example.com (not example.com itself); others match exactly. */
function inAllowlist(entries: readonly string[], hostname: string): boolean {
  return entries.some((entry) => {
    const pattern = normaliseHost(entry.trim())
    if (pattern.startsWith("*.")) return hostname.endsWith(pattern.slice(1))
    return pattern === hostname
  })
}

function parseUrl(raw: string | URL): URL {
  let url: URL
  try {
    url = raw instanceof URL ? new URL(raw.href) : new URL(raw)
  } catch {
    throw new SsrfError(`Not a valid URL: ${String(raw).slice(0, 200)}`)
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new SsrfError(`Refused ${url.protocol} URL: only http and https are fetched.`)
  }
  return url
}

/** The form compared against `allowed_hosts` and metadata names: `a.b.` and `A.B` are `a.b`. */
export function normaliseHost(host: string): string {
  const bare = stripBrackets(host.toLowerCase())
  // A loop, not /\.+$/: that regex rescans every run of dots and is quadratic on `a.....b`.
  let end = bare.length
  while (end > 0 && bare[end - 1] === ".") end--
  return bare.slice(0, end)
}

function stripBrackets(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host
}

function isIpLiteral(hostname: string): boolean {
  return hostname.includes(":") || parseIpv4(hostname) !== undefined
}

function hostPort(hostname: string, port: number): string {
  return hostname.includes(":") ? `[${hostname}]:${port}` : `${hostname}:${port}`
}

function normalisedEntries(policy: SsrfPolicy): string[] {
  return policy.allowedHosts.map((entry) => {
    const trimmed = entry.trim().toLowerCase()
    const withPort = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(trimmed)
    if (!withPort) return trimmed
    const host = normaliseHost(withPort[1] ?? "")
    return withPort[2] ? hostPort(host, Number(withPort[2])) : host
  })
}

function allowsExact(policy: SsrfPolicy, hostname: string, port: number): boolean {
  return normalisedEntries(policy).includes(hostPort(hostname, port))
}

function allowsHost(policy: SsrfPolicy, hostname: string, port: number): boolean {
  const entries = normalisedEntries(policy)
  return entries.includes(hostname) || entries.includes(hostPort(hostname, port))
}

/** A URL for messages: userinfo dropped, so a password in a URL never reaches the model or logs. */
export function redactUrl(url: URL): string {
  if (!url.username && !url.password) return url.href
  const copy = new URL(url.href)
  copy.username = ""
  copy.password = ""
  return copy.href
}
