import { describe, expect, test } from "bun:test"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Type } from "@sinclair/typebox"
import { Toolset } from "../../src/tool/toolset.ts"
import { assembleToolsets, type ToolsetSources } from "../../src/toolset/assemble.ts"
import type { ToolsetFactory, ToolsetSettings } from "../../src/toolset/kind.ts"
import { CODE_TOOLSETS } from "../../src/toolset/registry.ts"

function file(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), "dupin-assemble-")), "team.yaml")
  writeFileSync(path, text)
  return path
}

function sources(over: Partial<ToolsetSources> = {}): ToolsetSources {
  return {
    config: {},
    customFiles: [],
    additional: [],
    context: { env: {}, runbooks: undefined, protectedPaths: [] },
    ...over,
  }
}

/** A code toolset that remembers the settings the merge handed it. */
function recording(): { factory: ToolsetFactory; seen: ToolsetSettings[] } {
  const seen: ToolsetSettings[] = []
  const factory: ToolsetFactory = {
    name: "demo/code",
    configSchema: Type.Object({ url: Type.Optional(Type.String()) }, { additionalProperties: false }),
    create(settings) {
      seen.push(settings)
      return new Toolset({
        name: "demo/code",
        enabled: settings.enabled ?? false,
        config: settings.config ?? {},
      })
    },
  }
  return { factory, seen }
}

describe("assembleToolsets", () => {
  test("a registry entry is all a code toolset needs: config, custom files and flags reach it in order", () => {
    const { factory, seen } = recording()
    const custom = file("toolsets:\n  demo/code: { config: { url: http://custom } }\n")
    const toolsets = assembleToolsets(
      sources({
        config: { "demo/code": { enabled: false, config: { url: "http://config" } } },
        customFiles: [custom],
        flags: { "demo/code": { enabled: true } },
      }),
      [factory],
    )
    expect(seen).toEqual([{ enabled: true, config: { url: "http://custom" } }])
    expect(toolsets.find((t) => t.name === "demo/code")?.enabled).toBe(true)
    // The YAML toolsets come first, the code toolsets after them, as before.
    expect(toolsets.at(-1)?.name).toBe("demo/code")
    expect(toolsets.some((t) => t.name === "kubernetes/core")).toBe(true)
  })

  test("the registered schema checks the toolset's config at load: a typo or a wrong type is a config error", () => {
    const { factory } = recording()
    const load = (config: Record<string, unknown>) => () =>
      assembleToolsets(sources({ config: { "demo/code": config }, configFileName: "dupin.yaml" }), [factory])
    expect(load({ enabled: true, config: { url: 42 } })).toThrow(
      "dupin.yaml: toolsets.demo/code.config.url: expected string",
    )
    expect(load({ config: { ulr: "http://x" } })).toThrow(
      "dupin.yaml: toolsets.demo/code.config.ulr: unknown key",
    )
    // Switched off: left alone, as its {{ env.X }} are.
    expect(load({ enabled: false, config: { ulr: "http://x" } })).not.toThrow()
  })

  test("overrides of a code toolset are checked like the config file, with file and key path", () => {
    const { factory } = recording()
    expect(() =>
      assembleToolsets(
        sources({ config: { "demo/code": { enabled: "sometimes" } }, configFileName: "dupin.yaml" }),
        [factory],
      ),
    ).toThrow(
      "dupin.yaml: toolsets.demo/code.enabled: expected a boolean (true/false, yes/no, on/off or 1/0)",
    )
    const redefined = file(
      'toolsets:\n  demo/code:\n    description: mine\n    tools: [{ name: t, description: d, command: "true" }]\n',
    )
    expect(() => assembleToolsets(sources({ customFiles: [redefined] }), [factory])).toThrow(
      `${redefined}: toolsets.demo/code: demo/code is built into dupin; set only enabled and config here`,
    )
  })

  test("the registered toolsets, in their listed order, and the bash flag wins over the file", () => {
    const names = CODE_TOOLSETS.map((f) => f.name)
    expect(names).toEqual(["core_investigation", "runbook", "bash", "internet", "prometheus/metrics"])
    const toolsets = assembleToolsets(
      sources({
        config: { bash: { enabled: false } },
        flags: { bash: { enabled: true } },
      }),
    )
    const byName = Object.fromEntries(toolsets.map((t) => [t.name, t]))
    expect(byName.bash?.enabled).toBe(true)
    expect(toolsets.slice(-names.length).map((t) => t.name)).toEqual(names)
  })

  test("a custom file may switch a code toolset, as the config file may", () => {
    const custom = file("toolsets:\n  internet: { enabled: false }\n")
    const internet = assembleToolsets(sources({ customFiles: [custom] })).find((t) => t.name === "internet")
    expect(internet?.enabled).toBe(false)
  })
})
