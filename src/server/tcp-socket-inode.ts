import { dlopen, FFIType, ptr } from "bun:ffi"
import { isIPv4 } from "node:net"

/**
 * The inode of one TCP socket on this host, found by its four-tuple with a single sock_diag
 * netlink request (what `ss` uses). The alternative, /proc/net/tcp, is built by the kernel by
 * walking its whole connection hash: ~5 ms per read on a large host, per request.
 *
 * Returns the inode, 0 when no such socket exists here, or undefined when the kernel cannot be
 * asked (not Linux, no libc found): the caller then decides without it.
 */
export function tcpSocketInode(local: Endpoint, remote: Endpoint): number | undefined {
  const diag = open()
  if (!diag) return undefined
  const family = isIPv4(local.address) ? AF_INET : AF_INET6
  request.fill(0)
  view.setUint32(0, request.byteLength, true)
  view.setUint16(4, SOCK_DIAG_BY_FAMILY, true)
  view.setUint16(6, NLM_F_REQUEST, true)
  view.setUint32(8, ++sequence, true)
  request[16] = family
  request[17] = IPPROTO_TCP
  view.setUint32(20, 0xffffffff, true) // every state
  // inet_diag_sockid: ports and addresses in network byte order, then interface and cookie.
  view.setUint16(24, local.port, false)
  view.setUint16(26, remote.port, false)
  request.set(addressBytes(local.address, family), 28)
  request.set(addressBytes(remote.address, family), 44)
  view.setUint32(64, 0xffffffff, true) // INET_DIAG_NOCOOKIE: look up by the tuple alone
  view.setUint32(68, 0xffffffff, true)
  if (diag.send() !== request.byteLength) return undefined
  const got = diag.receive()
  if (got < NLMSG_HDR) return undefined
  const answer = new DataView(reply.buffer, 0, got)
  const type = answer.getUint16(4, true)
  if (type === NLMSG_ERROR) return answer.getInt32(16, true) === -ENOENT ? 0 : undefined
  if (type !== SOCK_DIAG_BY_FAMILY || got < NLMSG_HDR + MSG_INODE + 4) return undefined
  return answer.getUint32(NLMSG_HDR + MSG_INODE, true)
}

export type Endpoint = { address: string; port: number }

const AF_INET = 2
const AF_INET6 = 10
const AF_NETLINK = 16
const SOCK_DGRAM = 2
const SOCK_CLOEXEC = 0o2000000
const NETLINK_SOCK_DIAG = 4
const SOCK_DIAG_BY_FAMILY = 20
const NLM_F_REQUEST = 1
const NLMSG_ERROR = 2
const NLMSG_HDR = 16
const IPPROTO_TCP = 6
const REQ_LEN = 56
/** Offset of `idiag_inode` in `struct inet_diag_msg`. */
const MSG_INODE = 68
const MSG_DONTWAIT = 0x40
const ENOENT = 2
const LIBC_NAMES = ["libc.so.6", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1"]

let sequence = 0
// One request and one reply buffer, reused: a pointer to a fresh buffer per call costs more
// than the lookup itself.
const request = new Uint8Array(NLMSG_HDR + REQ_LEN)
const view = new DataView(request.buffer)
const reply = new Uint8Array(8192)
/**
 * sockaddr_nl of the kernel: family, then zero pad, port id 0, groups 0. Held here for the life of
 * the process like the two buffers: a pointer keeps nothing alive, and a local array once freed
 * by the collector turned every later lookup into EINVAL (the fallback then read /proc/net/tcp).
 */
const kernel = new Uint8Array(12)
type Diag = { send(): number; receive(): number }
let diag: Diag | null | undefined

/** One netlink socket for the process's lifetime, opened on first use. */
function open(): Diag | null {
  if (diag !== undefined) return diag
  diag = null
  if (process.platform !== "linux") return diag
  for (const name of LIBC_NAMES) {
    try {
      const libc = dlopen(name, {
        socket: { args: [FFIType.i32, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
        sendto: {
          args: [FFIType.i32, FFIType.ptr, FFIType.u64, FFIType.i32, FFIType.ptr, FFIType.u32],
          returns: FFIType.i64,
        },
        recv: { args: [FFIType.i32, FFIType.ptr, FFIType.u64, FFIType.i32], returns: FFIType.i64 },
      })
      const fd = libc.symbols.socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG)
      if (fd < 0) return diag
      kernel[0] = AF_NETLINK
      const [requestAt, replyAt, kernelAt] = [ptr(request), ptr(reply), ptr(kernel)]
      diag = {
        send: () => Number(libc.symbols.sendto(fd, requestAt, request.byteLength, 0, kernelAt, 12)),
        // The kernel answers within sendto, so the reply is already queued; never block the
        // event loop waiting for one that is not.
        receive: () => Number(libc.symbols.recv(fd, replyAt, reply.byteLength, MSG_DONTWAIT)),
      }
      return diag
    } catch {
      // Not this libc; try the next name.
    }
  }
  return diag
}

/** 16 bytes as inet_diag_sockid holds them: IPv4 in the first 4, IPv6 (incl. mapped) in all. */
function addressBytes(address: string, family: number): Uint8Array {
  const out = new Uint8Array(16)
  const v4 = address.replace(/^::ffff:/i, "")
  if (family === AF_INET) {
    v4.split(".").forEach((part, i) => {
      out[i] = Number(part)
    })
    return out
  }
  const [head = "", tail = ""] = address.split("::")
  const groups = (s: string) => (s === "" ? [] : s.split(":"))
  const left = groups(head)
  const right = groups(tail)
  const all = address.includes("::")
    ? [...left, ...Array(8 - left.length - right.length).fill("0"), ...right]
    : left
  all.forEach((group, i) => {
    const value = Number.parseInt(group, 16)
    out[i * 2] = value >> 8
    out[i * 2 + 1] = value & 0xff
  })
  return out
}
