import { describe, expect, test } from "bun:test"
import { guardHost, guardUrl, type Resolver, type SsrfPolicy } from "../../../src/toolset/internet/ssrf.ts"

const signal = new AbortController().signal
const open: SsrfPolicy = { allowPrivate: false, allowedHosts: [] }

/** Names that exist only in the tests, so no real DNS is consulted. */
const resolver: Resolver = async (hostname) => {
  const table: Record<string, string[]> = {
    "docs.example.com": ["93.184.216.34"],
    "example.com": ["93.184.216.34"],
    "kubernetes.io": ["147.75.40.148"],
    "evil.test": ["93.184.216.35"],
    "wire.test": ["168.63.129.16"],
    "teredo.test": ["2001:0:4136:e378:8000:63bf:3fff:fdd2"],
    "nat64.test": ["64:ff9b:1::a9fe:a9fe"],
  }
  const addresses = table[hostname]
  if (!addresses) throw new Error(`ENOTFOUND ${hostname}`)
  return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }))
}

async function refusal(url: string, policy: SsrfPolicy = open): Promise<string> {
  try {
    await guardUrl(url, policy, signal, resolver)
  } catch (error) {
    return (error as Error).message
  }
  throw new Error(`${url} was not refused`)
}

describe("SSRF guard", () => {
  test.each([
    ["http://168.63.129.16/machine?comp=goalstate", "metadata"],
    ["http://wire.test/", "metadata"],
    ["http://[::ffff:0:a9fe:a9fe]/", "metadata"],
    ["http://[64:ff9b:1::a9fe:a9fe]/", "reserved"],
    ["http://nat64.test/", "reserved"],
    ["http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", "reserved"],
    ["http://teredo.test/", "reserved"],
    ["http://[fd20:ce::254]/computeMetadata/v1/", "metadata"],
    ["http://metadata.tencentyun.com/", "metadata"],
  ])("%s is refused (%s)", async (url, why) => {
    expect(await refusal(url, { allowPrivate: true, allowedHosts: ["168.63.129.16"] })).toContain(why)
  })

  test("a host of many dots is judged in linear time; an overlong host is refused", async () => {
    const started = performance.now()
    expect(await refusal(`http://a${".".repeat(200_000)}b/`)).toContain("too long")
    expect(performance.now() - started).toBeLessThan(500)
  })

  test("a URL echoed in a refusal is capped", async () => {
    const message = await refusal(`http://169.254.169.254/${"x".repeat(100_000)}`)
    expect(message.length).toBeLessThan(500)
  })
})

describe("egress allowlist", () => {
  const policy: SsrfPolicy = { ...open, egressAllowlist: ["*.example.com", "kubernetes.io", "93.184.216.36"] }

  test("listed hosts and names under a wildcard pass", async () => {
    expect((await guardUrl("https://docs.example.com/x", policy, signal, resolver)).address).toBe(
      "93.184.216.34",
    )
    expect((await guardUrl("https://kubernetes.io/docs", policy, signal, resolver)).port).toBe(443)
    expect((await guardHost("93.184.216.36", 443, policy, signal, resolver)).address).toBe("93.184.216.36")
    expect((await guardUrl("https://KUBERNETES.IO./", policy, signal, resolver)).hostname).toBe(
      "kubernetes.io",
    )
  })

  test("anything else is refused with a message naming the config key", async () => {
    for (const url of [
      "https://evil.test/?q=secret",
      "https://example.com/",
      "https://docs.example.com.evil.test/",
      "https://93.184.216.34/",
      "https://notkubernetes.io/",
    ]) {
      expect(await refusal(url, policy)).toContain("toolsets.internet.config.egress_allowlist")
    }
  })

  test("a refused name is never looked up, so the refusal leaks nothing through DNS", async () => {
    const looked: string[] = []
    const recording: Resolver = async (hostname, signal) => {
      looked.push(hostname)
      return resolver(hostname, signal)
    }
    await expect(guardUrl("https://c2VjcmV0.evil.test/", policy, signal, recording)).rejects.toThrow(
      "egress_allowlist",
    )
    expect(looked).toEqual([])
  })

  test("the address checks still apply to listed hosts", async () => {
    const listed: SsrfPolicy = { ...open, egressAllowlist: ["wire.test", "127.0.0.1"] }
    expect(await refusal("http://wire.test/", listed)).toContain("metadata")
    expect(await refusal("http://127.0.0.1:8080/", listed)).toContain("loopback")
  })

  test("an empty list lets nothing out", async () => {
    expect(await refusal("https://kubernetes.io/", { ...open, egressAllowlist: [] })).toContain(
      "egress_allowlist",
    )
  })
})
