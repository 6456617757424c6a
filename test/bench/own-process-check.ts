/**
 * The cost of the R8 check (src/server/own-process-peer.ts): run once per API request when no
 * auth token is set, it scans the processes dupin started. Measured in this process with N
 * children running (`sleep`, spawned with piped stdio as tools are, so each holds sockets), for
 * a loopback client that is not one of them: the case every legitimate request pays. A new
 * connection pays the whole look; later requests on a kept-alive one pay a netlink lookup (the
 * answer is kept by socket inode).
 */
import { isOwnProcessPeer } from "../../src/server/own-process-peer.ts"
import { type BenchReport, emit } from "./support/report.ts"
import { fmt, median } from "./support/stats.ts"

const COUNTS = [0, 10, 50]
const ITERATIONS = 200
/** New connections per count: each pays the whole look once. */
const FRESH = 100

async function main(): Promise<BenchReport> {
  const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } })
  const client = await Bun.connect({ hostname: "127.0.0.1", port: server.port, socket: { data() {} } })
  const peer = { address: "127.0.0.1", port: client.localPort }
  const local = { address: "127.0.0.1", port: server.port }
  const rows: string[][] = []
  const perCount = new Map<number, number>()
  for (const count of COUNTS) {
    const children = Array.from({ length: count }, () =>
      Bun.spawn(["sleep", "60"], { stdin: "pipe", stdout: "pipe", stderr: "pipe" }),
    )
    try {
      await Bun.sleep(100)
      if (isOwnProcessPeer(peer, local)) throw new Error("a client that is no child was taken for one")
      const kept: number[] = []
      for (let i = 0; i < ITERATIONS; i++) {
        const t = performance.now()
        isOwnProcessPeer(peer, local)
        kept.push((performance.now() - t) * 1000)
      }
      const fresh: number[] = []
      for (let i = 0; i < FRESH; i++) {
        const other = await Bun.connect({ hostname: "127.0.0.1", port: server.port, socket: { data() {} } })
        const t = performance.now()
        const own = isOwnProcessPeer({ address: "127.0.0.1", port: other.localPort }, local)
        fresh.push((performance.now() - t) * 1000)
        other.end()
        if (own) throw new Error("a client that is no child was taken for one")
      }
      perCount.set(count, median(fresh))
      rows.push([String(count), fmt(median(fresh), 0), fmt(median(kept), 0)])
    } finally {
      for (const c of children) c.kill()
    }
  }
  client.end()
  server.stop(true)
  const at10 = perCount.get(10) ?? Number.NaN
  return {
    name: "R8 own-process check per request",
    method:
      `Median of isOwnProcessPeer for a loopback client that is not a child, with N children running (each with ` +
      `piped stdio, as tool processes): the first request of ${FRESH} new connections, and ${ITERATIONS} later ` +
      "requests on one kept-alive connection. Runs only when no auth token is set.",
    table: { head: ["children running", "µs, new connection", "µs, kept-alive connection"], rows },
    targets: [
      {
        claim: "own-process check with 10 tool processes running, new connection",
        measured: `${fmt(at10, 0)} µs per connection`,
        target: "reported (no stated target)",
        met: Number.isFinite(at10),
      },
    ],
  }
}

if (import.meta.main) emit(await main())
