/**
 * dupin marks itself non-dumpable at start: the kernel then makes its /proc/<pid> entries root's,
 * so a same-user tool process cannot read its environ (provider keys, auth token, approval
 * secret), its mem, or ptrace it. Root (CAP_SYS_PTRACE) is not stopped by this; the pid namespace
 * of the sandbox is the layer for that.
 */
import { dlopen, FFIType } from "bun:ffi"

const PR_SET_DUMPABLE = 4
const PR_GET_DUMPABLE = 3
/** glibc first, then musl (Alpine); the names dlopen resolves without a full path. */
const LIBC_NAMES = ["libc.so.6", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1"]

let done: boolean | undefined

/** Makes this process non-dumpable (Linux only, once). Returns whether it is non-dumpable now. */
export function makeNonDumpable(): boolean {
  if (done !== undefined) return done
  done = false
  if (process.platform !== "linux") return done
  for (const name of LIBC_NAMES) {
    try {
      const libc = dlopen(name, {
        prctl: {
          args: [FFIType.i32, FFIType.u64, FFIType.u64, FFIType.u64, FFIType.u64],
          returns: FFIType.i32,
        },
      })
      try {
        libc.symbols.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
        done = libc.symbols.prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) === 0
      } finally {
        libc.close()
      }
      return done
    } catch {
      // Not this libc; try the next name.
    }
  }
  return done
}
