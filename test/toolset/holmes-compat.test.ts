import { describe, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { setLogLevel, setLogSink } from "../../src/log.ts"
import { CommandTemplate, TemplateError } from "../../src/tool/template.ts"
import { buildToolsets, parseToolsetFile } from "../../src/toolset/loader.ts"
import type { YamlTool } from "../../src/toolset/yaml-tool.ts"

const FIXTURE = join(import.meta.dir, "fixtures", "holmes-network.yaml")

/** Runs `body`, returning the log lines it wrote. */
function captureLog(body: () => void): string[] {
  const lines: string[] = []
  const previous = setLogSink((line) => lines.push(line))
  const level = setLogLevel("INFO")
  try {
    body()
  } finally {
    setLogSink(previous)
    setLogLevel(level)
  }
  return lines
}

describe("HolmesGPT toolset files, unchanged", () => {
  test("a HolmesGPT file with config defaults, a tool defined twice and transformer_configs loads", () => {
    let names: string[][] = []
    const lines = captureLog(() => {
      const definitions = parseToolsetFile(readFileSync(FIXTURE, "utf8"), FIXTURE)
      names = buildToolsets(definitions).map((t) => t.tools.map((tool) => tool.name))
    })
    // The later definition of dns_lookup wins; the earlier toolset keeps its other tool.
    expect(names).toEqual([["http_probe"], ["dns_lookup", "echo_timeout"]])
    const warnings = lines.map((l) => JSON.parse(l)).filter((l) => l.level === "WARN")
    expect(warnings.map((w) => w.msg).join("\n")).toContain(
      'tool "dns_lookup" is defined by toolsets network/basic and network/extended',
    )
    expect(lines.join("\n")).toContain("transformer_configs")
  })

  test("{{ config.key | default(x) }} reads the toolset's config, else the default, and is no parameter", () => {
    const [basic, extended] = buildToolsets(parseToolsetFile(readFileSync(FIXTURE, "utf8"), FIXTURE))
    const probe = basic!.tools[0] as YamlTool
    expect(Object.keys(probe.parameters)).toEqual(["url"])
    expect(probe.render({ url: "http://x" }).display).toContain("--max-time 5 http://x")
    const echo = extended!.tools.find((t) => t.name === "echo_timeout") as YamlTool
    expect(echo.render({}).display).toBe("echo timeout=600")
    // A caller cannot supply a config value by naming it as an argument.
    expect(echo.render({ "config.timeout": "$(id)" }).display).toBe("echo timeout=600")
  })

  test("config values still go through the shell as data", () => {
    const rendered = new CommandTemplate("echo {{ config.label }}").render({}, { config: { label: "$(id)" } })
    expect(rendered.script).not.toContain("$(id)")
    expect(Object.values(rendered.env)).toEqual(["$(id)"])
  })

  test("a filter other than default is refused with a message saying what is supported", () => {
    expect(() => new CommandTemplate("echo {{ name | upper }}")).toThrow(TemplateError)
    expect(() => new CommandTemplate("echo {{ name | upper }}")).toThrow(
      'unsupported filter "upper" in {{ name | upper }}: only default(<literal>) is supported',
    )
  })
})

describe("placeholder typos", () => {
  const file = (command: string, parameters: string) =>
    `toolsets:\n  svc/tools:\n    description: d\n    tools:\n      - name: svc_status\n        description: d\n        command: "${command}"\n        parameters:\n${parameters}`

  test("{{ servce }} with service declared is a load error naming both", () => {
    const text = file("systemctl status {{ servce }}", "          service: { type: string }\n")
    expect(() => parseToolsetFile(text, "svc.yaml")).toThrow(
      'svc.yaml: toolsets.svc/tools.tools[0].command: uses undeclared "servce" while declared "service" is never used',
    )
  })

  test("undeclared placeholders alone are still inferred, and unused declarations alone still load", () => {
    const inferred = parseToolsetFile(
      file("systemctl status {{ unit }} {{ service }}", "          service: { type: string }\n"),
      "a.yaml",
    )
    expect(Object.keys(buildToolsets(inferred)[0]!.tools[0]!.parameters).sort()).toEqual(["service", "unit"])
    const unused = parseToolsetFile(
      file("systemctl list-units", "          service: { type: string, required: false }\n"),
      "b.yaml",
    )
    expect(Object.keys(buildToolsets(unused)[0]!.tools[0]!.parameters)).toEqual(["service"])
  })
})
