/**
 * Header type confusion outside the chat body: a Host header the URL parser refuses (`[::1`,
 * `x:99999`, `%zz`, `:::`) reached a 500 on every route, /readyz included, with a stack trace in
 * the log per request. Such requests are answered like any other, with and without the header
 * guard; a request target with a fragment on a known path is a 404, not "GET is not allowed".
 */
import { afterEach, describe, expect, test } from "bun:test"
import { connect } from "node:net"
import { Config } from "../../src/config/config.ts"
import { setLogSink } from "../../src/log.ts"
import { type RunningServer, startServer } from "../../src/server/server.ts"

let server: RunningServer | undefined
afterEach(async () => {
  await server?.shutdown(100)
  server = undefined
})

/** One request on a fresh connection, read until the server closes it. */
function rawRequest(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1")
    let data = ""
    socket.setEncoding("utf8")
    socket.on("data", (chunk) => {
      data += chunk
    })
    socket.on("error", reject)
    socket.on("close", () => resolve(data))
    socket.setTimeout(5000, () => socket.destroy(new Error(`no answer to ${JSON.stringify(request)}`)))
    socket.write(request)
  })
}

const statusOf = (answer: string) => Number(answer.split(" ")[1])

describe("a Host header the URL parser refuses", () => {
  for (const headerTimeoutMs of [10_000, 0]) {
    const mode = headerTimeoutMs ? "through the header guard" : "without the header guard"
    test(`is answered like any request, never a 500 (${mode})`, async () => {
      const errors: string[] = []
      const restore = setLogSink((line) => {
        if (line.includes('"level":"ERROR"')) errors.push(line)
      })
      try {
        server = startServer(
          new Config({
            model: "openai/qwen3",
            apiBase: "http://127.0.0.1:9/v1",
            toolsets: { "kubernetes/core": { enabled: false } },
            server: { auth_token: "tok" },
            env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
          }),
          { port: 0, headerTimeoutMs, drainMs: 0 },
        )
        const port = server.port
        for (const host of ["[::1", "x:99999", "%zz", ":::"]) {
          const get = (path: string, auth = "") =>
            rawRequest(port, `GET ${path} HTTP/1.1\r\nHost: ${host}\r\n${auth}Connection: close\r\n\r\n`)
          expect(statusOf(await get("/readyz")), `/readyz with Host ${host}`).toBe(200)
          expect(statusOf(await get("/api/info")), `/api/info with Host ${host}`).toBe(401)
          expect(statusOf(await get("/api/info", "Authorization: Bearer tok\r\n"))).toBe(200)
          const body = '{"ask":1}'
          const chat = await rawRequest(
            port,
            `POST /api/chat HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer tok\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
          )
          expect(statusOf(chat), `/api/chat with Host ${host}`).toBe(422)
        }
        const fragment = await rawRequest(
          port,
          "GET /readyz#x HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
        )
        expect(statusOf(fragment)).toBe(404)
        expect(errors).toEqual([])
      } finally {
        setLogSink(restore)
      }
    })
  }
})
