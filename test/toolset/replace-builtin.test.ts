import { describe, expect, test } from "bun:test"
import { join } from "node:path"
import { setLogLevel, setLogSink } from "../../src/log.ts"
import { builtinToolsetDefinitions } from "../../src/toolset/builtin/index.ts"
import { buildToolsets, mergeToolsetSources, parseToolsetFile } from "../../src/toolset/loader.ts"

/** Runs `body`, returning its result and the warnings it logged. */
function withWarnings<T>(body: () => T): { result: T; warnings: string[] } {
  const lines: string[] = []
  const previous = setLogSink((line) => lines.push(line))
  const level = setLogLevel("INFO")
  try {
    const result = body()
    const warnings = lines.map((l) => JSON.parse(l)).filter((l) => l.level === "WARN")
    return { result, warnings: warnings.map((w) => w.msg) }
  } finally {
    setLogSink(previous)
    setLogLevel(level)
  }
}

/** The README's YAML toolsets example, as a user would copy it into a custom file. */
async function readmeExample(): Promise<string> {
  const readme = await Bun.file(join(import.meta.dir, "../../README.md")).text()
  const section = readme.slice(readme.indexOf("### YAML toolsets"))
  return /```yaml\n([\s\S]*?)```/.exec(section)![1]!
}

describe("a custom toolset named like a built-in", () => {
  test("replaces it with one warning naming both files", () => {
    const custom = parseToolsetFile(
      'toolsets:\n  linux/host:\n    description: mine\n    tools: [{ name: my_uptime, description: d, command: "uptime" }]\n',
      "custom.yaml",
    )
    const { result, warnings } = withWarnings(() =>
      mergeToolsetSources({ builtin: builtinToolsetDefinitions(), config: {}, custom }),
    )
    expect(result.find((d) => d.name === "linux/host")!.tools.map((t) => t.name)).toEqual(["my_uptime"])
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain(
      "toolset linux/host from custom.yaml replaces the toolset of that name from",
    )
    expect(warnings[0]).toContain("linux-host.yaml")
  })

  test("an override (enabled/config only) is not a replacement and warns nothing", () => {
    const { warnings } = withWarnings(() =>
      mergeToolsetSources({
        builtin: builtinToolsetDefinitions(),
        config: { "linux/host": { enabled: false } },
        custom: [],
      }),
    )
    expect(warnings).toEqual([])
  })

  test("the README's example adds a toolset and leaves the built-in linux/host whole", async () => {
    const builtin = builtinToolsetDefinitions()
    const before = builtin.find((d) => d.name === "linux/host")!.tools.length
    expect(before).toBeGreaterThan(1)
    const custom = parseToolsetFile(await readmeExample(), "custom.yaml")
    const { result, warnings } = withWarnings(() =>
      buildToolsets(mergeToolsetSources({ builtin, config: {}, custom })),
    )
    expect(warnings).toEqual([])
    expect(result.find((t) => t.name === "linux/host")!.tools).toHaveLength(before)
    expect(result.some((t) => t.tools.some((tool) => tool.name === "journal_tail"))).toBe(true)
  })
})
