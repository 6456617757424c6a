/**
 * The sock_diag lookup behind the R8 own-process check (src/server/tcp-socket-inode.ts): the
 * inode of a real loopback connection, the same as /proc/self/fd names it, and still after the
 * collector has run (a freed buffer behind a pointer once made every later lookup fail).
 */
import { afterAll, beforeAll, expect, test } from "bun:test"
import { readdirSync, readlinkSync } from "node:fs"
import type { Socket, TCPSocketListener } from "bun"
import { tcpSocketInode } from "../../src/server/tcp-socket-inode.ts"

let server: TCPSocketListener
let client: Socket

beforeAll(async () => {
  server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } })
  client = await Bun.connect({ hostname: "127.0.0.1", port: server.port, socket: { data() {} } })
})

afterAll(() => {
  client.end()
  server.stop(true)
})

/** The socket inodes this process holds. */
function heldInodes(): Set<number> {
  const inodes = new Set<number>()
  for (const fd of readdirSync("/proc/self/fd")) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`))
      if (match) inodes.add(Number(match[1]))
    } catch {
      // Closed since the listing.
    }
  }
  return inodes
}

test.skipIf(process.platform !== "linux")(
  "finds the client socket's inode, before and after collections",
  () => {
    const ask = () =>
      tcpSocketInode(
        { address: "127.0.0.1", port: client.localPort },
        { address: "127.0.0.1", port: server.port },
      )
    const first = ask()
    expect(first).toBeGreaterThan(0)
    expect(heldInodes().has(first as number)).toBe(true)
    for (let round = 0; round < 20; round++) {
      // Garbage of the size the lookup's buffers have, then a full collection.
      for (let i = 0; i < 10_000; i++) new Uint8Array(12 + (i % 64))
      Bun.gc(true)
      expect(ask()).toBe(first)
    }
  },
)

test.skipIf(process.platform !== "linux")("a connection that does not exist is 0, not unknown", () => {
  expect(tcpSocketInode({ address: "127.0.0.1", port: 1 }, { address: "127.0.0.1", port: server.port })).toBe(
    0,
  )
})
