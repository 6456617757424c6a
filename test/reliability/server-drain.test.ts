/**
 * Draining (CONTRACT §5 Operations): from SIGTERM on, `/readyz` answers 503 while new requests are
 * still served for `server.drain_delay` (lame duck: a load balancer moves away before anything is
 * refused); then new requests get 503 with `Connection: close` on a listener that stays open, idle
 * keep-alive connections get that answer instead of a reset, and the chat in flight finishes.
 */
import { afterEach, expect, test } from "bun:test"
import { rmSync } from "node:fs"
import { connect, type Socket } from "node:net"
import { startServerProcess, waitForOk } from "../bench/support/processes.ts"
import { writeServeConfig } from "../bench/support/server-config.ts"
import { type FakeProvider, type RecordedRequest, startFakeProvider } from "../support/fake-provider.ts"
import { withinDeadline } from "./deadline.ts"
import { callThenAnswer } from "./server.ts"

let fake: FakeProvider | undefined
let dir: string | undefined
afterEach(async () => {
  await fake?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

/** A raw keep-alive connection: one request at a time, the reply read up to its Content-Length. */
class RawClient {
  #data = ""
  #ended = false
  #wake: (() => void) | undefined
  constructor(readonly socket: Socket) {
    socket.setEncoding("utf8")
    socket.on("data", (d: string) => {
      this.#data += d
      this.#wake?.()
    })
    const end = () => {
      this.#ended = true
      this.#wake?.()
    }
    socket.on("end", end)
    socket.on("close", end)
    socket.on("error", end)
  }
  static open(port: number): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, "127.0.0.1", () => resolve(new RawClient(socket)))
      socket.once("error", reject)
    })
  }
  get ended(): boolean {
    return this.#ended
  }
  async request(method: string, path: string): Promise<{ status: number; head: string }> {
    this.#data = ""
    this.socket.write(`${method} ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n`)
    for (;;) {
      const end = this.#data.indexOf("\r\n\r\n")
      if (end >= 0) {
        const head = this.#data.slice(0, end)
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0)
        if (this.#data.length >= end + 4 + length) return { status: Number(head.split(" ")[1]), head }
      }
      if (this.#ended) throw new Error(`connection ended before a reply: ${JSON.stringify(this.#data)}`)
      await new Promise<void>((resolve) => {
        this.#wake = resolve
      })
    }
  }
  async closedByServer(): Promise<void> {
    while (!this.#ended) {
      await new Promise<void>((resolve) => {
        this.#wake = resolve
      })
    }
  }
}

for (const headerTimeout of [10, 0]) {
  test(`SIGTERM drains lame duck first: /readyz 503 while new requests are served, then new requests 503 with Connection: close, the running chat finishes (header_timeout ${headerTimeout})`, async () => {
    fake = await startFakeProvider()
    const decide = callThenAnswer("nap", { seconds: "2" })
    const step = (request: RecordedRequest) => {
      fake?.script(step)
      return decide(request)
    }
    fake.script(step)
    const files = writeServeConfig(
      fake.url,
      `server:\n  header_timeout: ${headerTimeout}\n  drain_delay: 1.5\n`,
    )
    dir = files.dir
    const server = await startServerProcess(
      ["bun", "test/reliability/serve-with-grace.ts", files.configPath],
      {
        GRACE_MS: "8000",
        SVC_DRAIN_DELAY: "1.5",
      },
    )
    const port = Number(new URL(server.url).port)
    await waitForOk(`${server.url}/readyz`)
    const idle = await RawClient.open(port)
    expect((await idle.request("GET", "/healthz")).status).toBe(200)

    const chat = fetch(`${server.url}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ask: "nap please" }),
    })
    await withinDeadline(
      "the chat's tool to start",
      10_000,
      (async () => {
        while (fake.requests.filter((r) => r.path.endsWith("/chat/completions")).length < 1)
          await Bun.sleep(20)
        await Bun.sleep(300)
      })(),
    )

    server.proc.kill("SIGTERM")
    await Bun.sleep(300)
    // The idle keep-alive connection is answered, not reset, and then closed.
    const probe = await idle.request("GET", "/readyz")
    expect(probe.status).toBe(503)
    expect(probe.head.toLowerCase()).toContain("connection: close")
    await withinDeadline("the server to close the idle connection", 5_000, idle.closedByServer())
    // Lame duck: the balancer has not seen the 503 yet, so what it still sends here is served.
    const served = await fetch(`${server.url}/api/model`)
    expect(served.status).toBe(200)
    await Bun.sleep(1_500)
    // New connections are still accepted, and told to go elsewhere.
    const fresh = await RawClient.open(port)
    const refused = await fresh.request("POST", "/api/model")
    expect(refused.status).toBe(503)
    expect(refused.head.toLowerCase()).toContain("connection: close")
    const readyz = await fetch(`${server.url}/readyz`)
    expect(readyz.status).toBe(503)
    expect(await readyz.json()).toEqual({ status: "shutting_down" })

    const answered = await withinDeadline("the chat in flight", 10_000, chat)
    expect(answered.status).toBe(200)
    const body = (await answered.json()) as {
      analysis: string
      tool_calls: Array<{ result: { status: string } }>
    }
    expect(body.analysis).toBe("Done.")
    expect(body.tool_calls[0]?.result.status).toBe("success")
    expect(await withinDeadline("server exit", 15_000, server.proc.exited)).toBe(0)
  }, 40_000)
}
