import { describe, expect, test } from "bun:test"
import { type AddressKind, classifyAddress } from "../../../src/toolset/internet/address.ts"
import { htmlToText } from "../../../src/toolset/internet/html-to-text.ts"

describe("classifyAddress", () => {
  test.each([
    ["8.8.8.8", "public"],
    ["2606:4700:4700::1111", "public"],
    ["169.254.169.254", "metadata"],
    ["169.254.170.2", "metadata"],
    ["::ffff:169.254.169.254", "metadata"],
    ["::169.254.169.254", "metadata"],
    ["64:ff9b::a9fe:a9fe", "metadata"],
    ["2002:a9fe:a9fe::1", "metadata"],
    ["2002:0a00:0001::1", "private"],
    ["::ffff:127.0.0.1", "loopback"],
    ["127.255.0.1", "loopback"],
    ["fe80::1%eth0", "link-local"],
    ["febf::1", "link-local"],
    ["fec0::1", "private"],
    ["fc00::1", "private"],
    ["0.1.2.3", "unspecified"],
    ["255.255.255.255", "reserved"],
    ["ff02::1", "multicast"],
    ["1.2.3", "invalid"],
    ["1::2::3", "invalid"],
    ["01.2.3.4.5", "invalid"],
  ] as Array<[string, AddressKind]>)("%s is %s", (address, kind) => {
    expect(classifyAddress(address)).toBe(kind)
  })
})

describe("htmlToText on hostile pages", () => {
  test.each([
    ["unclosed tags", "<a x=".repeat(400_000)],
    ["unclosed comments", "<!--".repeat(500_000)],
    ["unclosed scripts", "<script>".repeat(250_000)],
    ["entities", "&amp;&#x41;&bogus;".repeat(100_000)],
  ])("%s (2 MB) convert in bounded time", (_name, html) => {
    const started = performance.now()
    htmlToText(html)
    expect(performance.now() - started).toBeLessThan(3000)
  })

  test("an unclosed script hides the rest instead of leaking code into the text", () => {
    expect(htmlToText("<p>visible</p><script>var token = 1; <p>not text")).toBe("visible")
  })
})
