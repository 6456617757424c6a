/**
 * IP address classification for the SSRF guard. Addresses come from `dns.lookup` or from a URL
 * host the WHATWG parser already normalised (it turns `2852039166`, `0251.0376.0251.0376` and
 * `0xa9fea9fe` into `169.254.169.254`), but this module parses strictly on its own so a form the
 * parser let through is never mistaken for a public address: anything unparsable is "invalid".
 */
export type AddressKind =
  | "public"
  | "private"
  | "loopback"
  | "link-local"
  | "metadata"
  | "unspecified"
  | "multicast"
  | "reserved"
  | "invalid"

/**
 * Cloud metadata endpoints: 169.254.169.254 (AWS, GCP, Azure, Oracle, OpenStack, DigitalOcean…),
 * 169.254.170.2 (AWS ECS task credentials), 100.100.100.200 (Alibaba), 168.63.129.16 (Azure
 * wireserver: a public-looking address that hands out VM extension settings and certificates).
 */
const METADATA_V4 = new Set([
  ipv4("169.254.169.254"),
  ipv4("169.254.170.2"),
  ipv4("100.100.100.200"),
  ipv4("168.63.129.16"),
])
/** GCP's IPv6 metadata server; AWS keeps IMDS, DNS and NTP in fd00:ec2::/32 (see classifyV6). */
const METADATA_V6 = new Set(["fd20:ce:0:0:0:0:0:254"])

/** [network, prefix length, kind], first match wins. */
const V4_RANGES: Array<[number, number, AddressKind]> = [
  [ipv4("0.0.0.0"), 8, "unspecified"],
  [ipv4("127.0.0.0"), 8, "loopback"],
  [ipv4("169.254.0.0"), 16, "link-local"],
  [ipv4("10.0.0.0"), 8, "private"],
  [ipv4("172.16.0.0"), 12, "private"],
  [ipv4("192.168.0.0"), 16, "private"],
  [ipv4("100.64.0.0"), 10, "private"],
  [ipv4("198.18.0.0"), 15, "private"],
  [ipv4("192.0.0.0"), 24, "reserved"],
  // Documentation (TEST-NET-1..3) and the retired 6to4 relay anycast: never a real destination.
  [ipv4("192.0.2.0"), 24, "reserved"],
  [ipv4("198.51.100.0"), 24, "reserved"],
  [ipv4("203.0.113.0"), 24, "reserved"],
  [ipv4("192.88.99.0"), 24, "reserved"],
  [ipv4("224.0.0.0"), 4, "multicast"],
  [ipv4("240.0.0.0"), 4, "reserved"],
]

export function classifyAddress(address: string): AddressKind {
  const unbracketed = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address
  const zone = unbracketed.indexOf("%")
  const bare = zone === -1 ? unbracketed : unbracketed.slice(0, zone)
  if (!bare.includes(":")) {
    const v4 = parseIpv4(bare)
    return v4 === undefined ? "invalid" : classifyV4(v4)
  }
  const groups = parseIpv6(bare)
  return groups ? classifyV6(groups) : "invalid"
}

function classifyV4(ip: number): AddressKind {
  if (METADATA_V4.has(ip)) return "metadata"
  for (const [net, bits, kind] of V4_RANGES) {
    const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0
    if ((ip & mask) >>> 0 === net) return kind
  }
  return "public"
}

function classifyV6(g: number[]): AddressKind {
  const [g0 = 0, g1 = 0, , , g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g
  const embedded = ((g6 << 16) | g7) >>> 0
  if (g.every((x) => x === 0)) return "unspecified"
  if (g.slice(0, 7).every((x) => x === 0) && g7 === 1) return "loopback"
  if (METADATA_V6.has(g.map((x) => x.toString(16)).join(":"))) return "metadata"
  if (g0 === 0xfd00 && g1 === 0x0ec2) return "metadata"
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d), IPv4-translated
  // (::ffff:0:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) reach the embedded IPv4 address, so they are
  // as dangerous as it is.
  const zeroTo = (n: number) => g.slice(0, n).every((x) => x === 0)
  if (zeroTo(5) && (g5 === 0xffff || g5 === 0)) return classifyV4(embedded)
  if (zeroTo(4) && g4 === 0xffff && g5 === 0) return classifyV4(embedded)
  if (g0 === 0x64 && g1 === 0xff9b) {
    if (g.slice(2, 6).every((x) => x === 0)) return classifyV4(embedded)
    // 64:ff9b:1::/48 (local-use NAT64) places the IPv4 address where the operator chose, and the
    // rest of 64:ff9b::/32 is unassigned: no way to tell what it reaches, so it is refused.
    return "reserved"
  }
  // Teredo (2001::/32) tunnels to an obfuscated client IPv4 through a server IPv4 that may both be
  // private; no public service lives there today, so it is refused rather than decoded.
  if (g0 === 0x2001 && g1 === 0) return "reserved"
  // 6to4 (2002:AABB:CCDD::/16) tunnels to the IPv4 address in groups 1-2.
  if (g0 === 0x2002) {
    const kind = classifyV4(((g1 << 16) | (g[2] ?? 0)) >>> 0)
    if (kind !== "public") return kind
  }
  if ((g0 & 0xffc0) === 0xfe80) return "link-local"
  if ((g0 & 0xffc0) === 0xfec0) return "private"
  if ((g0 & 0xfe00) === 0xfc00) return "private"
  if ((g0 & 0xff00) === 0xff00) return "multicast"
  if (g0 === 0x2001 && g1 === 0x0db8) return "reserved"
  // Discard-only prefix 100::/64.
  if (g0 === 0x100 && g.slice(1, 4).every((x) => x === 0)) return "reserved"
  return "public"
}

/** Strict dotted-decimal IPv4 (what `dns.lookup` returns); undefined otherwise. */
export function parseIpv4(text: string): number | undefined {
  const parts = text.split(".")
  if (parts.length !== 4) return undefined
  let value = 0
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return undefined
    const n = Number(part)
    if (n > 255) return undefined
    value = value * 256 + n
  }
  return value
}

function ipv4(text: string): number {
  return parseIpv4(text) ?? 0
}

/** Eight 16-bit groups, or undefined. Accepts `::` and a trailing dotted IPv4 part. */
export function parseIpv6(text: string): number[] | undefined {
  let head = text.toLowerCase()
  const lastColon = head.lastIndexOf(":")
  const last = head.slice(lastColon + 1)
  if (last.includes(".")) {
    // A trailing dotted IPv4 part becomes two hex groups: ::ffff:1.2.3.4 -> ::ffff:102:304.
    const v4 = parseIpv4(last)
    if (v4 === undefined) return undefined
    head = `${head.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`
  }
  const halves = head.split("::")
  if (halves.length > 2) return undefined
  const parse = (s: string): number[] | undefined => {
    if (s === "") return []
    const out: number[] = []
    for (const part of s.split(":")) {
      if (!/^[0-9a-f]{1,4}$/.test(part)) return undefined
      out.push(Number.parseInt(part, 16))
    }
    return out
  }
  const left = parse(halves[0] ?? "")
  const right = halves.length === 2 ? parse(halves[1] ?? "") : []
  if (!left || !right) return undefined
  const explicit = left.length + right.length
  if (halves.length === 1) return explicit === 8 ? left : undefined
  if (explicit > 7) return undefined
  return [...left, ...new Array<number>(8 - explicit).fill(0), ...right]
}
