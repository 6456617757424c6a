import { readdirSync, readFileSync, readlinkSync } from "node:fs"
import { isIP } from "node:net"
import { type Endpoint, tcpSocketInode } from "./tcp-socket-inode.ts"

/**
 * Whether a loopback client of the API is a process dupin started: a tool, an MCP server, or
 * anything they started (findings R8). Without an auth token the API trusts loopback, yet tools
 * live on the same loopback: a contained MCP server called `/api/chat` and approved its own
 * pending command. The kernel knows who holds the client's end of a TCP connection; only dupin's
 * own descendants are looked at, so the cost is a few /proc reads, and nothing at all while no
 * tool or MCP server runs.
 *
 * Linux only; elsewhere (no /proc) nothing is refused.
 */
export function isOwnProcessPeer(peer: Endpoint, local: Endpoint, root = process.pid): boolean {
  const client = normal(peer)
  // A wildcard or named listener: a local client reaches it at the address it connects from.
  const named = WILDCARD.has(local.address) || isIP(local.address) === 0
  const server = normal(named ? { ...local, address: client.address } : local)
  const asked = tcpSocketInode(client, server)
  // A connection keeps its holder: one answer per socket, however many requests it carries.
  const known = asked ? verdicts.get(asked) : undefined
  if (known !== undefined) return known
  // Cheapest first: with no child running, no client can be one.
  const children = descendants(root)
  const inode = children.length === 0 ? asked : (asked ?? tableInode(client.port, server.port))
  // No such socket on this host: a client on another machine.
  if (!inode) return false
  const wanted = `socket:[${inode}]`
  const own = children.some((pid) => holds(pid, wanted))
  if (asked) remember(asked, own)
  return own
}

/**
 * Answers by socket inode (inodes are not reused while a socket lives). A socket changes hands only
 * when a process passes it on (SCM_RIGHTS), which needs a relay outside dupin's tree, the gap
 * docs/security.md names; so a connection's first answer stands for its life.
 */
const verdicts = new Map<number, boolean>()
const MAX_VERDICTS = 4096
function remember(inode: number, own: boolean): void {
  if (verdicts.size >= MAX_VERDICTS) {
    const oldest = verdicts.keys().next()
    if (!oldest.done) verdicts.delete(oldest.value)
  }
  verdicts.set(inode, own)
}

const WILDCARD = new Set(["0.0.0.0", "::"])

/** IPv4-mapped IPv6 (a dual-stack listener) is the IPv4 socket on the client's side. */
function normal(endpoint: Endpoint): Endpoint {
  return { port: endpoint.port, address: endpoint.address.replace(/^::ffff:(?=\d+\.)/i, "") }
}

/**
 * Every process below `root`, breadth first, from each thread's `children` list. Sandboxed tools
 * stay below dupin even after a double fork: they are re-parented to the sandbox's pid 1.
 */
export function descendants(root: number): number[] {
  const found: number[] = []
  const queue = [root]
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    for (const tid of list(`/proc/${pid}/task`)) {
      const text = read(`/proc/${pid}/task/${tid}/children`)
      for (const child of text.split(" ")) {
        if (child === "") continue
        found.push(Number(child))
        queue.push(Number(child))
      }
    }
  }
  return found
}

/**
 * Fallback when netlink is unavailable: the client's socket inode from the kernel's TCP tables
 * (slow, see tcp-socket-inode.ts). Ports alone suffice: both ends are on this host.
 */
function tableInode(peerPort: number, localPort: number): number | undefined {
  const local = `:${hex4(peerPort)}`
  const remote = `:${hex4(localPort)}`
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    for (const line of read(table).split("\n")) {
      // `sl local rem st tx:rx tr:when retrnsmt uid timeout inode ...`
      const fields = line.trim().split(/\s+/)
      if (fields[1]?.endsWith(local) && fields[2]?.endsWith(remote)) return Number(fields[9])
    }
  }
  return undefined
}

function holds(pid: number, wanted: string): boolean {
  for (const fd of list(`/proc/${pid}/fd`)) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`) === wanted) return true
    } catch {
      // Closed since the listing.
    }
  }
  return false
}

const hex4 = (port: number) => port.toString(16).toUpperCase().padStart(4, "0")

// A process may exit between two reads: what is gone holds nothing.
function list(path: string): string[] {
  try {
    return readdirSync(path)
  } catch {
    return []
  }
}

function read(path: string): string {
  try {
    return readFileSync(path, "latin1")
  } catch {
    return ""
  }
}
