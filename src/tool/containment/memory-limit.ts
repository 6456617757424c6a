/**
 * How much memory dupin's processes may use: the machine's, or less where a cgroup limits it. In
 * a Kubernetes pod or a systemd unit with `MemoryMax=`, the kernel's OOM killer acts at the
 * cgroup's limit; the tool memory quotas must be cut from that, not from the node's memory, or
 * the kernel kills before dupin's own quota does.
 */
import { readFileSync } from "node:fs"
import { totalmem } from "node:os"
import { posix } from "node:path"

/** cgroup v2's file and v1's (memory controller). */
const V2_FILE = "memory.max"
const V1_FILE = "memory.limit_in_bytes"

/**
 * The smallest memory limit of this process's cgroup and its ancestors, or the machine's memory
 * when none is lower. `root` and `selfCgroup` are for tests.
 */
export function memoryLimitBytes(root = "/sys/fs/cgroup", selfCgroup = "/proc/self/cgroup"): number {
  let limit = totalmem()
  for (const file of limitFiles(root, readText(selfCgroup) ?? "")) {
    const value = Number.parseInt(readText(file)?.trim() ?? "", 10)
    // v2 says "max" for no limit (NaN here); v1 says a number near 2^63.
    if (Number.isFinite(value) && value > 0 && value < limit) limit = value
  }
  return limit
}

/**
 * The limit files that bound this process, from its entries in /proc/self/cgroup
 * (`0::/path` for v2, `N:memory:/path` for v1). In a container the cgroup namespace usually makes
 * the path `/`, and the mount shows only the container's subtree; on a host the path is under
 * the mount. Each ancestor's limit applies too.
 */
function limitFiles(root: string, cgroups: string): string[] {
  const files: string[] = []
  for (const line of cgroups.split("\n")) {
    const [, controllers, path] = line.split(/:(.*?):/)
    if (path === undefined || !path.startsWith("/")) continue
    if (controllers === "") files.push(...ancestorFiles(root, path, V2_FILE))
    else if (controllers?.split(",").includes("memory"))
      files.push(...ancestorFiles(posix.join(root, "memory"), path, V1_FILE))
  }
  return files
}

function ancestorFiles(mount: string, path: string, file: string): string[] {
  const files: string[] = []
  for (let dir = posix.normalize(path); ; dir = posix.dirname(dir)) {
    files.push(posix.join(mount, dir, file))
    if (dir === "/") return files
  }
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, "utf8")
  } catch {
    return null
  }
}
