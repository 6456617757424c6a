import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { configureContainment, resetContainment } from "../../src/tool/containment/index.ts"
import { ToolResultStatus } from "../../src/tool/result.ts"
import { runProcess } from "../../src/tool/spawn.ts"
import { DEFAULT_TOOL_LIMITS, type Tool, type ToolContext } from "../../src/tool/tool.ts"
import { buildToolEnv } from "../../src/tool/tool-env.ts"
import type { Toolset } from "../../src/tool/toolset.ts"
import { builtinToolsetSources } from "../../src/toolset/builtin/index.ts"
import { buildToolsets, parseToolsetFile } from "../../src/toolset/loader.ts"
import type { YamlTool } from "../../src/toolset/yaml-tool.ts"

const env = buildToolEnv(process.env)
const context: ToolContext = {
  signal: new AbortController().signal,
  toolCallId: "c",
  limits: DEFAULT_TOOL_LIMITS,
  env,
}
let host: Toolset

beforeAll(() => {
  const definitions = builtinToolsetSources().flatMap((s) => parseToolsetFile(s.text, s.fileName))
  const toolsets = buildToolsets(definitions)
  host = toolsets.find((t) => t.name === "linux/host")!
})

function tool(name: string): Tool {
  const found = host.tools.find((t) => t.name === name)
  if (!found) throw new Error(`no tool ${name}`)
  return found
}

async function call(name: string, raw: Record<string, unknown> = {}) {
  const checked = tool(name).validate(raw)
  if (!checked.ok) throw new Error(checked.error)
  return tool(name).run(checked.params, context)
}

describe("linux/host", () => {
  test("every built-in file parses and builds", () => {
    expect(host.description).toContain("Read-only")
    expect(host.tools.length).toBeGreaterThanOrEqual(11)
  })

  test("the prerequisite passes on Linux", async () => {
    await host.checkPrerequisites({ env, signal: context.signal, timeoutSeconds: 10 })
    expect(host.status).toBe("enabled")
  })

  test("uptime, memory and disks", async () => {
    const uptime = await call("host_uptime")
    expect(uptime.status).toBe(ToolResultStatus.SUCCESS)
    expect(uptime.dataText()).toMatch(/load average/)
    expect(uptime.dataText()).toMatch(/cpus: \d+/)
    expect((await call("host_memory")).dataText()).toMatch(/MemTotal:/)
    const disks = await call("host_disk_usage")
    expect(disks.dataText()).toMatch(/Mounted on/)
    expect(disks.dataText()).toMatch(/IUsed/)
  })

  test("top processes by memory, limited", async () => {
    const r = await call("host_top_processes", { sort_by: "mem", count: 3 })
    expect(r.status).toBe(ToolResultStatus.SUCCESS)
    expect(r.dataText().trim().split("\n").length).toBe(4)
    expect(tool("host_top_processes").validate({ sort_by: "io" }).ok).toBe(false)
  })

  test("DNS lookup of localhost", async () => {
    const r = await call("host_dns_lookup", { name: "localhost" })
    expect(r.status).toBe(ToolResultStatus.SUCCESS)
    expect(r.dataText()).toMatch(/127\.0\.0\.1|::1/)
    expect(tool("host_dns_lookup").validate({ name: "a;b" }).ok).toBe(false)
  })

  test("network addresses and kernel messages run", async () => {
    expect((await call("host_network_addresses")).dataText()).toContain("lo")
    const kernel = await call("host_kernel_messages", { lines: 5 })
    expect(kernel.invocation).toContain("tail -n 5")
  })

  test("journal renders --since only when given", () => {
    const journal = tool("host_journal")
    expect(journal.getParameterizedOneLiner({ unit: "kubelet.service", lines: 50 })).toBe(
      "journalctl -u kubelet.service  -n 50 --no-pager --output=short-iso",
    )
    expect(journal.getParameterizedOneLiner({ unit: "kubelet", since: "1 hour ago", lines: 5 })).toContain(
      "--since 1 hour ago -n 5",
    )
    expect(journal.validate({ unit: "x; reboot" }).ok).toBe(false)
  })
})

// Issue 21 item 9: a tool whose answer is about the host must see the host's view. Inside the
// sandbox, df listed the sandbox's own tmpfs mounts (a 64 MiB /dev/shm, the masked /etc/dupin,
// dupin's run dirs) as if they were the host's, and ps listed only the run's own processes.
describe.skipIf(!Bun.which("bwrap") || process.platform !== "linux")("host tools under containment", () => {
  beforeAll(() => {
    configureContainment({ mode: "auto" })
  })
  afterAll(() => resetContainment())

  test("host_disk_usage reports the host's disk filesystems, none of the sandbox's own mounts", async () => {
    const result = await call("host_disk_usage")
    const text = String(result.data)
    expect(text).toMatch(/ \/\n/) // the root filesystem
    for (const own of ["/dev/shm", "/etc/dupin", "dupin-runs", " /dev\n"]) expect(text).not.toContain(own)
    // The same disk filesystems the host's own df lists.
    const hostDf = Bun.spawnSync(["df", "--output=target", "-x", "tmpfs", "-x", "devtmpfs", "-x", "squashfs"])
    for (const target of hostDf.stdout.toString().trim().split("\n").slice(1))
      expect(text).toContain(` ${target.trim()}\n`)
  })

  test("host_top_processes lists the host's processes, and the run can signal none of them", async () => {
    expect((tool("host_top_processes") as YamlTool).hostView).toBe(true)
    const marker = Bun.spawn(["sleep", "4242"], { stdout: "ignore", stderr: "ignore" })
    try {
      // Sorted by memory and long enough to reach a sleep: ps's own comm column names it.
      const result = await call("host_top_processes", { sort_by: "mem", count: 2000 })
      const text = String(result.data)
      expect(text).toContain("sleep")
      expect(text).toMatch(new RegExp(`^\\s*${marker.pid}\\s`, "m"))
      // A host-view run lists host processes but, in its own pid namespace, signals none of
      // them, and dupin's (non-dumpable) environ stays closed.
      const probe = await runProcess({
        argv: [
          "sh",
          "-c",
          `kill ${marker.pid}; echo "kill=$?"; cat /proc/${process.pid}/environ; echo "cat=$?"`,
        ],
        env,
        timeoutMs: 10_000,
        maxOutputBytes: 10_000,
        hostView: true,
      })
      expect(probe.output).toMatch(/kill=[1-9]/)
      expect(probe.output).toMatch(/cat=[1-9]/)
      expect(probe.output).not.toContain("PATH=")
      await Bun.sleep(50)
      expect(marker.exitCode).toBeNull()
    } finally {
      marker.kill()
    }
  })
})
