import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { ToolResultStatus } from "../../../src/tool/result.ts"
import { DEFAULT_TOOL_LIMITS, type ToolContext } from "../../../src/tool/tool.ts"
import type { Toolset } from "../../../src/tool/toolset.ts"
import { createInternetToolset, type Resolver } from "../../../src/toolset/internet/index.ts"

const context: ToolContext = {
  signal: new AbortController().signal,
  toolCallId: "c",
  limits: DEFAULT_TOOL_LIMITS,
  env: {},
}

type Seen = { path: string; host: string | null; token: string | null }
let server: ReturnType<typeof Bun.serve>
let base: string
let hostPort: string
const seen: Seen[] = []

const PAGE = `<!doctype html><html><head><title>Node pressure</title><script>steal()</script></head><body>
<h2>Disk pressure</h2><p>Run <code>kubectl describe node</code> and read <a href="/docs/eviction">eviction</a>.</p>
<ul><li>kubelet</li><li>containerd</li></ul></body></html>`

beforeAll(() => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const url = new URL(request.url)
      seen.push({
        path: url.pathname,
        host: request.headers.get("host"),
        token: request.headers.get("x-token"),
      })
      const to = url.searchParams.get("to")
      if (url.pathname === "/redirect" && to)
        return new Response(null, { status: 302, headers: { location: to } })
      if (url.pathname === "/loop") return new Response(null, { status: 302, headers: { location: "/loop" } })
      if (url.pathname === "/page")
        return new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } })
      if (url.pathname === "/plain")
        return new Response("plain text body", { headers: { "content-type": "text/plain" } })
      if (url.pathname === "/image")
        return new Response(new Uint8Array([137, 80, 78, 71]), { headers: { "content-type": "image/png" } })
      if (url.pathname === "/big")
        return new Response("x".repeat(3_000_000), { headers: { "content-type": "text/plain" } })
      return new Response("<h1>Not here</h1>", { status: 404, headers: { "content-type": "text/html" } })
    },
  })
  hostPort = `127.0.0.1:${server.port}`
  base = `http://${hostPort}`
})

afterAll(() => {
  server.stop(true)
})

/** Names that exist only in the tests, so no real DNS is consulted. */
const resolver: Resolver = async (hostname) => {
  const table: Record<string, string[]> = {
    "app.test": ["127.0.0.1"],
    "rebind.test": ["93.184.216.34", "169.254.169.254"],
    "intranet.test": ["10.0.0.7"],
    localhost: ["127.0.0.1", "::1"],
  }
  const addresses = table[hostname]
  if (!addresses) throw new Error(`ENOTFOUND ${hostname}`)
  return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }))
}

function toolset(config: Record<string, unknown> = { allowed_hosts: [hostPort] }): Toolset {
  return createInternetToolset({ config }, { resolve: resolver })
}

async function fetchUrl(url: string, set: Toolset = toolset()) {
  const tool = set.tools[0]!
  const checked = tool.validate({ url })
  if (!checked.ok) throw new Error(checked.error)
  return tool.run(checked.params, context)
}

describe("fetch_webpage", () => {
  test("a page on the allowed local server comes back as markdown-ish text", async () => {
    const result = await fetchUrl(`${base}/page`)
    expect(result.status).toBe(ToolResultStatus.SUCCESS)
    const text = String(result.data)
    expect(text).toContain("Title: Node pressure")
    expect(text).toContain("## Disk pressure")
    expect(text).toContain("`kubectl describe node`")
    expect(text).toContain(`[eviction](${base}/docs/eviction)`)
    expect(text).toContain("- kubelet\n- containerd")
    expect(text).not.toContain("steal()")
  })

  test("plain text is returned as it is; an HTTP error carries its status", async () => {
    expect((await fetchUrl(`${base}/plain`)).data).toBe("plain text body")
    const missing = await fetchUrl(`${base}/nowhere`)
    expect(missing.status).toBe(ToolResultStatus.ERROR)
    expect(missing.error).toContain("HTTP 404")
    expect(String(missing.data)).toContain("# Not here")
  })

  test("non-text content is refused", async () => {
    const result = await fetchUrl(`${base}/image`)
    expect(result.status).toBe(ToolResultStatus.ERROR)
    expect(result.error).toContain("image/png")
  })

  test("the download stops at max_download_bytes", async () => {
    const result = await fetchUrl(
      `${base}/big`,
      toolset({ allowed_hosts: [hostPort], max_download_bytes: 10_000, max_output_chars: 5_000 }),
    )
    const text = String(result.data)
    expect(text).toContain("only the first 10000 characters")
    expect(text).toContain("page text cut at 5000 characters")
    expect(text.length).toBeLessThan(6_000)
  })

  test("loopback is refused without an exact host:port entry, even for the same server", async () => {
    for (const config of [{}, { allowed_hosts: ["127.0.0.1"] }, { allow_private: true }]) {
      const result = await fetchUrl(`${base}/page`, toolset(config))
      expect(result.status).toBe(ToolResultStatus.ERROR)
      expect(result.error).toContain("loopback")
    }
    // The entry names 127.0.0.1; localhost is another name for it and stays refused.
    const byName = await fetchUrl(`http://localhost:${server.port}/page`)
    expect(byName.error).toContain("loopback")
  })

  test.each([
    ["http://169.254.169.254/latest/meta-data/", "metadata"],
    ["http://169.254.169.254./latest/meta-data/", "metadata"],
    ["http://evil@169.254.169.254/", "metadata"],
    ["http://2852039166/", "metadata"],
    ["http://0251.0376.0251.0376/", "metadata"],
    ["http://0xa9fea9fe/", "metadata"],
    ["http://[::ffff:169.254.169.254]/", "metadata"],
    ["http://[::ffff:a9fe:a9fe]/", "metadata"],
    ["http://[fd00:ec2::254]/", "metadata"],
    ["http://100.100.100.200/", "metadata"],
    ["http://metadata.google.internal/computeMetadata/v1/", "metadata"],
    ["http://METADATA.google.internal./", "metadata"],
    ["http://169.254.10.1/", "link-local"],
    ["http://[fe80::1]/", "link-local"],
    ["http://[::1]/", "loopback"],
    ["http://127.1/", "loopback"],
    ["http://0.0.0.0/", "unspecified"],
    ["http://[::]/", "unspecified"],
    ["http://224.0.0.1/", "multicast"],
    ["http://10.0.0.1/", "private"],
    ["http://192.168.1.1/", "private"],
    ["http://172.20.0.1/", "private"],
    ["http://100.64.0.1/", "private"],
    ["http://[fd12:3456::1]/", "private"],
    ["http://intranet.test/", "private"],
    ["http://rebind.test/", "metadata"],
  ])("%s is refused (%s)", async (url, kind) => {
    const result = await fetchUrl(url, toolset({ allowed_hosts: [hostPort] }))
    expect(result.status).toBe(ToolResultStatus.ERROR)
    expect(result.error).toContain(kind)
    expect(result.error).not.toContain("evil@")
  })

  test("metadata and link-local stay refused whatever the config says", async () => {
    const permissive = toolset({
      allow_private: true,
      allowed_hosts: ["169.254.169.254", "169.254.169.254:80", "metadata.google.internal", "[fe80::1]:80"],
    })
    for (const url of ["http://169.254.169.254/", "http://metadata.google.internal/", "http://[fe80::1]/"]) {
      const result = await fetchUrl(url, permissive)
      expect(result.status).toBe(ToolResultStatus.ERROR)
      expect(result.error).toMatch(/metadata|link-local/)
    }
  })

  test("private addresses pass with allow_private or an allowed_hosts entry", async () => {
    // 10.0.0.7 is not reachable from the test; what matters is that the guard let it through.
    const short = { timeout_seconds: 1 }
    for (const config of [
      { allow_private: true, ...short },
      { allowed_hosts: ["intranet.test"], ...short },
    ]) {
      const result = await fetchUrl("http://intranet.test/", toolset(config))
      expect(result.error ?? "").not.toContain("Refused")
    }
  })

  test.each([
    "http://169.254.169.254/latest/meta-data/iam/",
    "http://[::1]/",
    "http://2852039166/",
    "http://[::ffff:a9fe:a9fe]/",
    "http://0xa9fea9fe/",
    "http://rebind.test/",
  ])("a redirect from the allowed server to %s is refused", async (target) => {
    const result = await fetchUrl(`${base}/redirect?to=${encodeURIComponent(target)}`)
    expect(result.status).toBe(ToolResultStatus.ERROR)
    expect(result.error).toContain("Refused")
  })

  test("redirects are followed to an allowed host, at most five", async () => {
    const ok = await fetchUrl(`${base}/redirect?to=/page`)
    expect(ok.status).toBe(ToolResultStatus.SUCCESS)
    expect(String(ok.data)).toContain("(redirected to")
    const loop = await fetchUrl(`${base}/loop`)
    expect(loop.error).toContain("Too many redirects")
  })

  test("connects to the validated address and sends the name in Host; headers only to their host", async () => {
    seen.length = 0
    const appHost = `app.test:${server.port}`
    const set = toolset({
      allowed_hosts: [hostPort, appHost],
      headers: { [hostPort]: { "X-Token": "only-for-127" } },
    })
    const result = await fetchUrl(`${base}/redirect?to=${encodeURIComponent(`http://${appHost}/plain`)}`, set)
    expect(result.data).toContain("plain text body")
    expect(seen).toEqual([
      { path: "/redirect", host: hostPort, token: "only-for-127" },
      { path: "/plain", host: appHost, token: null },
    ])
  })

  test("egress_allowlist limits every hop to the listed hosts, and the refusal names the key", async () => {
    const appHost = `app.test:${server.port}`
    const listed = toolset({ allowed_hosts: [hostPort, appHost], egress_allowlist: ["127.0.0.1"] })
    expect((await fetchUrl(`${base}/page`, listed)).status).toBe(ToolResultStatus.SUCCESS)
    const hop = await fetchUrl(`${base}/redirect?to=${encodeURIComponent(`http://${appHost}/page`)}`, listed)
    expect(hop.status).toBe(ToolResultStatus.ERROR)
    expect(hop.error).toContain("app.test is not in toolsets.internet.config.egress_allowlist")
    const other = toolset({ allowed_hosts: [hostPort], egress_allowlist: ["*.example.com", "kubernetes.io"] })
    const refused = await fetchUrl(`${base}/page`, other)
    expect(refused.error).toContain("toolsets.internet.config.egress_allowlist")
  })

  test("only http and https URLs are accepted", async () => {
    const tool = toolset().tools[0]!
    expect(tool.validate({ url: "file:///etc/passwd" }).ok).toBe(false)
    const result = await fetchUrl(`${base}/redirect?to=${encodeURIComponent("file:///etc/passwd")}`)
    expect(result.error).toContain("only http and https")
  })

  test("an invalid config fails the toolset with a clear message", async () => {
    const set = createInternetToolset({ config: { allowed_hosts: "everything" } })
    await set.checkPrerequisites({ env: {}, signal: new AbortController().signal, timeoutSeconds: 5 })
    expect(set.status).toBe("failed")
    expect(set.error).toContain("/allowed_hosts")
    const list = createInternetToolset({ config: { egress_allowlist: "kubernetes.io" } })
    await list.checkPrerequisites({ env: {}, signal: new AbortController().signal, timeoutSeconds: 5 })
    expect(list.error).toContain("/egress_allowlist")
  })
})
