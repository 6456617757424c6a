import { afterAll, describe, expect, test } from "bun:test"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir, totalmem } from "node:os"
import { join } from "node:path"
import { memoryLimitBytes } from "../../src/tool/containment/memory-limit.ts"

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** A fake /sys/fs/cgroup and /proc/self/cgroup: `files` maps a path under the mount to its text. */
function cgroupTree(selfCgroup: string, files: Record<string, string>): [string, string] {
  const dir = mkdtempSync(join(tmpdir(), "dupin-cgroup-"))
  dirs.push(dir)
  const root = join(dir, "sys")
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true })
    writeFileSync(join(root, path), text)
  }
  writeFileSync(join(dir, "cgroup"), selfCgroup)
  return [root, join(dir, "cgroup")]
}

const GiB = 1024 ** 3

describe("the memory dupin may use", () => {
  test("cgroup v2 in a pod (namespace root): the pod's memory.max", () => {
    const [root, self] = cgroupTree("0::/\n", { "memory.max": `${2 * GiB}\n` })
    expect(memoryLimitBytes(root, self)).toBe(Math.min(2 * GiB, totalmem()))
  })

  test("cgroup v2 under systemd: the unit's MemoryMax, or a lower limit of its slice", () => {
    const [root, self] = cgroupTree("0::/system.slice/dupin.service\n", {
      "system.slice/dupin.service/memory.max": `${3 * GiB}\n`,
      "system.slice/memory.max": `${1 * GiB}\n`,
    })
    expect(memoryLimitBytes(root, self)).toBe(Math.min(1 * GiB, totalmem()))
  })

  test("cgroup v1's memory controller, with its 'no limit' near 2^63", () => {
    const [root, self] = cgroupTree("9:name=systemd:/\n4:memory:/kubepods/pod1\n0::/\n", {
      "memory/kubepods/pod1/memory.limit_in_bytes": `${GiB / 2}\n`,
      "memory/memory.limit_in_bytes": "9223372036854771712\n",
    })
    expect(memoryLimitBytes(root, self)).toBe(Math.min(GiB / 2, totalmem()))
  })

  test("no limit ('max'), no cgroup files or no /proc/self/cgroup: the machine's memory", () => {
    const [root, self] = cgroupTree("0::/\n", { "memory.max": "max\n" })
    expect(memoryLimitBytes(root, self)).toBe(totalmem())
    expect(memoryLimitBytes(join(root, "absent"), join(root, "absent-cgroup"))).toBe(totalmem())
  })

  test("a limit above the machine's memory does not raise it", () => {
    const [root, self] = cgroupTree("0::/\n", { "memory.max": `${totalmem() * 4}\n` })
    expect(memoryLimitBytes(root, self)).toBe(totalmem())
  })
})
