import { afterEach, expect, test } from "bun:test"
import { connect, type Socket } from "node:net"
import { Config } from "../../src/config/config.ts"
import { type RunningServer, startServer } from "../../src/server/server.ts"

let server: RunningServer | undefined
afterEach(async () => {
  await server?.shutdown(0)
  server = undefined
})

const HEADER_TIMEOUT_MS = 600

function config(server: Record<string, unknown> = {}): Config {
  return new Config({
    model: "openai/gpt-4o",
    apiKey: "test",
    apiBase: "http://127.0.0.1:9/v1",
    server,
    env: {},
  })
}

function start(): RunningServer {
  return startServer(config(), { host: "127.0.0.1", port: 0, headerTimeoutMs: HEADER_TIMEOUT_MS })
}

type Probe = { socket: Socket; received: () => string; closedAfter: Promise<number> }

function open(port: number): Probe {
  const started = performance.now()
  const socket = connect(port, "127.0.0.1")
  let text = ""
  socket.on("data", (d) => {
    text += String(d)
  })
  socket.on("error", () => {})
  const closedAfter = new Promise<number>((resolve) =>
    socket.on("close", () => resolve(performance.now() - started)),
  )
  return { socket, received: () => text, closedAfter }
}

/** Writes `text` one byte every `everyMs` until the socket closes; never finishes the headers. */
function dribble(socket: Socket, text: string, everyMs: number): void {
  let i = 0
  const timer = setInterval(() => {
    if (socket.destroyed || i >= text.length) return clearInterval(timer)
    socket.write(text[i++] as string)
  }, everyMs)
}

const within = (ms: number) =>
  new Promise<number>((resolve) => setTimeout(() => resolve(Number.POSITIVE_INFINITY), ms))

test("a client that dribbles its request headers is closed at the header deadline", async () => {
  server = start()
  const probe = open(server.port)
  dribble(probe.socket, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ${"a".repeat(500)}`, 50)
  const closed = await Promise.race([probe.closedAfter, within(HEADER_TIMEOUT_MS + 2_000)])
  expect(closed).toBeGreaterThanOrEqual(HEADER_TIMEOUT_MS - 50)
  expect(closed).toBeLessThan(HEADER_TIMEOUT_MS + 1_000)
  expect(probe.received()).toBe("")
  // Other clients were served meanwhile and still are.
  expect((await fetch(`${server.url}/healthz`)).status).toBe(200)
})

test("a silent connection is closed at the header deadline too", async () => {
  server = start()
  const probe = open(server.port)
  const closed = await Promise.race([probe.closedAfter, within(HEADER_TIMEOUT_MS + 2_000)])
  expect(closed).toBeLessThan(HEADER_TIMEOUT_MS + 1_000)
})

test("keep-alive: a complete request is answered; the next request's headers get their own deadline", async () => {
  server = start()
  const probe = open(server.port)
  probe.socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
  await Bun.sleep(HEADER_TIMEOUT_MS + 200)
  expect(probe.received()).toContain('{"status":"ok"}')
  expect(probe.socket.destroyed).toBe(false)
  // A POST with a body, in pieces well within the deadline, is answered too.
  const body = JSON.stringify({ nothing: true })
  probe.socket.write(`POST /api/nothing HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n`)
  await Bun.sleep(100)
  probe.socket.write(`\r\n${body}`)
  await Bun.sleep(300)
  expect(probe.received()).toContain("404")
  // Now the third request dribbles: closed at its deadline.
  const started = performance.now()
  dribble(probe.socket, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 50)
  await Promise.race([probe.closedAfter, within(HEADER_TIMEOUT_MS + 2_000)])
  expect(probe.socket.destroyed || probe.socket.readableEnded).toBe(true)
  expect(performance.now() - started).toBeLessThan(HEADER_TIMEOUT_MS + 1_000)
})

test("through the guard: an HTTP/1.0 probe without Host, and a client that half-closes, are answered", async () => {
  server = start()
  for (const halfClose of [false, true]) {
    const socket = connect({ port: server.port, host: "127.0.0.1", allowHalfOpen: true })
    let text = ""
    socket.on("data", (d) => {
      text += String(d)
    })
    socket.on("error", () => {})
    const ended = new Promise<void>((resolve) => socket.on("end", () => resolve()))
    socket.write("GET /healthz HTTP/1.0\r\n\r\n")
    if (halfClose) socket.end()
    await Promise.race([ended, Bun.sleep(2_000)])
    socket.destroy()
    expect(text).toStartWith("HTTP/1.1 200")
    expect(text).toEndWith('{"status":"ok"}')
  }
})

test("server.header_timeout sets the deadline; 0 serves without the guard", async () => {
  server = startServer(config({ header_timeout: 0.5 }), { host: "127.0.0.1", port: 0 })
  const probe = open(server.port)
  dribble(probe.socket, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ${"a".repeat(500)}`, 50)
  expect(await Promise.race([probe.closedAfter, within(3_000)])).toBeLessThan(1_500)
  await server.shutdown(0)
  server = startServer(config({ header_timeout: 0 }), { host: "127.0.0.1", port: 0 })
  expect((await fetch(`${server.url}/healthz`)).status).toBe(200)
})
