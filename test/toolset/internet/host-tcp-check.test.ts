import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { ToolResultStatus } from "../../../src/tool/result.ts"
import { DEFAULT_TOOL_LIMITS, type Tool, type ToolContext } from "../../../src/tool/tool.ts"
import { createInternetToolset, type Resolver } from "../../../src/toolset/internet/index.ts"

const context: ToolContext = {
  signal: new AbortController().signal,
  toolCallId: "c",
  limits: DEFAULT_TOOL_LIMITS,
  env: {},
}

let server: Bun.TCPSocketListener<undefined>
let accepted = 0
beforeAll(() => {
  server = Bun.listen<undefined>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open() {
        accepted++
      },
      data() {},
    },
  })
})
afterAll(() => server.stop(true))

/** `rebind.test` answers once public, once metadata: the guard must refuse on the mix. */
const resolver: Resolver = async (hostname) => {
  const table: Record<string, string[]> = {
    "app.test": ["127.0.0.1"],
    "rebind.test": ["93.184.216.34", "169.254.169.254"],
    "db.test": ["10.0.0.7"],
  }
  const addresses = table[hostname]
  if (!addresses) throw new Error(`ENOTFOUND ${hostname}`)
  return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }))
}

function tcpCheck(config: Record<string, unknown>): Tool {
  const tool = createInternetToolset({ config }, { resolve: resolver }).tools.find(
    (t) => t.name === "host_tcp_check",
  )
  if (!tool) throw new Error("no host_tcp_check")
  return tool
}

async function check(args: Record<string, unknown>, config: Record<string, unknown> = {}) {
  const tool = tcpCheck(config)
  const checked = tool.validate(args)
  if (!checked.ok) throw new Error(checked.error)
  return tool.run(checked.params, context)
}

describe("host_tcp_check", () => {
  test("an open port on an exactly allowed loopback host:port", async () => {
    const allowed = { allowed_hosts: [`127.0.0.1:${server.port}`] }
    const r = await check({ host: "127.0.0.1", port: server.port }, allowed)
    expect(r.dataText()).toBe(`open: connected to 127.0.0.1:${server.port}`)
  })

  test("a closed port", async () => {
    const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } })
    const port = probe.port
    probe.stop(true)
    const r = await check(
      { host: "127.0.0.1", port, timeout_seconds: 2 },
      { allowed_hosts: [`127.0.0.1:${port}`] },
    )
    expect(r.dataText()).toStartWith(`closed: cannot connect to 127.0.0.1:${port}`)
  })

  test("loopback, metadata and link-local are refused before any connection", async () => {
    const before = accepted
    for (const host of [
      "127.0.0.1",
      "127.1.2.3",
      "::1",
      "169.254.169.254",
      "168.63.129.16",
      "fd00:ec2::254",
    ]) {
      const r = await check({ host, port: server.port }, { allow_private: true })
      expect(r.status).toBe(ToolResultStatus.ERROR)
      expect(r.error).toContain("Refused")
    }
    const viaName = await check({ host: "app.test", port: server.port }, { allow_private: true })
    expect(viaName.error).toContain("resolves to 127.0.0.1, a loopback address")
    expect(accepted).toBe(before)
  })

  test("a name resolving to a public and a metadata address is refused", async () => {
    const r = await check({ host: "rebind.test", port: 80 })
    expect(r.error).toContain("cloud metadata")
  })

  test("private hosts follow allow_private and allowed_hosts", async () => {
    expect((await check({ host: "db.test", port: 5432 })).error).toContain("allow_private")
    expect((await check({ host: "10.1.2.3", port: 22 })).error).toContain("private address")
  })

  test("the egress allowlist applies", async () => {
    const config = { allowed_hosts: [`127.0.0.1:${server.port}`], egress_allowlist: ["*.example.com"] }
    const r = await check({ host: "127.0.0.1", port: server.port }, config)
    expect(r.error).toContain("toolsets.internet.config.egress_allowlist")
  })

  test("the host is a plain name or address", () => {
    const tool = tcpCheck({})
    expect(tool.validate({ host: "a;b", port: 1 }).ok).toBe(false)
  })
})
