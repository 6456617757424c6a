import { describe, expect, test } from "bun:test"
import { ConfigError } from "../../src/errors.ts"
import { setLogSink } from "../../src/log.ts"
import { CommandPrerequisite } from "../../src/toolset/command-prerequisite.ts"
import { buildToolsets, mergeToolsetSources, parseToolsetFile } from "../../src/toolset/loader.ts"
import type { YamlTool } from "../../src/toolset/yaml-tool.ts"

const VALID = `
toolsets:
  demo/core:
    description: Demo tools
    llm_instructions: Use demo_get first.
    prerequisites:
      - command: "uname -s"
        expected_output: Linux
      - env: [KUBECONFIG]
    config: { url: "http://x" }
    tools:
      - name: demo_get
        description: Get a thing
        command: "kubectl get {{ kind }} {% if ns %}-n {{ ns }}{% endif %} --chunk-size {{ lines }}"
        parameters:
          kind: { type: string, description: Kind, enum: [pods, nodes] }
          lines: { type: integer, required: false, default: 20 }
        timeout: 30
      - name: demo_delete
        description: Delete a thing
        command: "kubectl delete pod {{ pod }}"
        requires_approval: true
`

/** The ConfigError message a parse throws. */
function parseError(text: string, fileName = "toolsets.yaml"): string {
  try {
    parseToolsetFile(text, fileName)
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return (error as Error).message
  }
  throw new Error("expected a ConfigError")
}

function withTool(tool: string): string {
  return `toolsets:\n  linux/host:\n    description: d\n    tools:\n      - { name: a, description: d, command: "true" }\n      - { name: b, description: d, command: "true" }\n      - ${tool}\n`
}

describe("parseToolsetFile", () => {
  test("a valid file", () => {
    const [definition] = parseToolsetFile(VALID, "demo.yaml")
    expect(definition).toMatchObject({
      name: "demo/core",
      description: "Demo tools",
      llmInstructions: "Use demo_get first.",
      prerequisites: [{ command: "uname -s", expectedOutput: "Linux" }, { env: ["KUBECONFIG"] }],
      config: { url: "http://x" },
    })
    const [toolset] = buildToolsets([definition!])
    expect(toolset!.name).toBe("demo/core")
    expect(toolset!.enabled).toBe(true)
    expect(toolset!.llmInstructions).toBe("Use demo_get first.")
    expect(toolset!.prerequisites[0]).toBeInstanceOf(CommandPrerequisite)
    const [get, del] = toolset!.tools as YamlTool[]
    expect(get!.timeout).toBe(30)
    // Declared parameters are kept; ns is inferred as an optional string (it is tested in an if).
    expect(Object.keys(get!.parameters).sort()).toEqual(["kind", "lines", "ns"])
    expect(get!.parameters.ns).toMatchObject({ type: "string", required: false })
    expect(get!.parameters.lines).toMatchObject({ type: "integer", required: false, default: 20 })
    expect(del!.parameters.pod).toMatchObject({ type: "string", required: true })
    expect(del!.requiresApproval({})).toBe(true)
    expect(get!.validate({ kind: "services" }).ok).toBe(false)
  })

  test("HolmesGPT files load unchanged; unused keys are logged once", () => {
    const lines: string[] = []
    const previous = setLogSink((line) => lines.push(line))
    try {
      const [definition] = parseToolsetFile(
        `toolsets:
  holmes/x:
    description: d
    docs_url: https://example.com/docs
    icon_url: https://example.com/icon.png
    installation_instructions: install it
    tags: [core, cluster]
    transformers: [{ name: llm_summarize }]
    tools:
      - name: x_script
        description: d
        user_description: "run x on {{ target }}"
        additional_instructions: "jq ."
        transformers: []
        script: |
          #!/bin/bash
          echo {{ target }}
`,
        "holmes.yaml",
      )
      expect(definition!.docsUrl).toBe("https://example.com/docs")
      expect(definition!.tags).toEqual(["core", "cluster"])
      expect(definition!.tools[0]!.command).toContain("echo {{ target }}")
      const [toolset] = buildToolsets([definition!])
      // HolmesGPT's additional_instructions is a shell filter on the output, not text for the model.
      expect(toolset!.tools[0]!.description).toBe("d")
      expect((toolset!.tools[0] as YamlTool).outputFilter).toBe("jq .")
      expect(toolset!.docsUrl).toBe("https://example.com/docs")
    } finally {
      setLogSink(previous)
    }
  })

  const invalid: Array<[string, string, string]> = [
    [
      "wrong type",
      withTool('{ name: c, description: d, command: "true", timeout: "10" }'),
      "toolsets.yaml: toolsets.linux/host.tools[2].timeout: expected a positive integer",
    ],
    [
      "zero timeout",
      withTool('{ name: c, description: d, command: "true", timeout: 0 }'),
      "toolsets.yaml: toolsets.linux/host.tools[2].timeout: expected a positive integer",
    ],
    [
      "unknown tool key",
      withTool('{ name: c, description: d, command: "true", shell: zsh }'),
      "toolsets.yaml: toolsets.linux/host.tools[2].shell: unknown key",
    ],
    [
      "bad tool name",
      withTool('{ name: "get pods", description: d, command: "true" }'),
      'toolsets.yaml: toolsets.linux/host.tools[2].name: "get pods" must match',
    ],
    [
      "duplicate tool name",
      withTool('{ name: a, description: d, command: "true" }'),
      'toolsets.yaml: toolsets.linux/host.tools[2].name: duplicate tool name "a" (also tools[0])',
    ],
    [
      "missing command",
      withTool("{ name: c, description: d }"),
      "toolsets.yaml: toolsets.linux/host.tools[2].command: required, expected a string",
    ],
    [
      "bad template",
      withTool('{ name: c, description: d, command: "echo {% if x %}" }'),
      "toolsets.yaml: toolsets.linux/host.tools[2].command: missing {% endif %}",
    ],
    [
      "bad parameter type",
      withTool('{ name: c, description: d, command: "true", parameters: { p: { type: text } } }'),
      "toolsets.yaml: toolsets.linux/host.tools[2].parameters.p.type: expected one of string, integer",
    ],
    [
      "bad pattern",
      withTool('{ name: c, description: d, command: "true", parameters: { p: { pattern: "([" } } }'),
      "toolsets.yaml: toolsets.linux/host.tools[2].parameters.p.pattern: not a valid regular expression",
    ],
    [
      "bad allow_leading_dash",
      withTool(
        '{ name: c, description: d, command: "true", parameters: { p: { allow_leading_dash: "always" } } }',
      ),
      "toolsets.yaml: toolsets.linux/host.tools[2].parameters.p.allow_leading_dash: expected a boolean (true/false, yes/no, on/off or 1/0)",
    ],
    [
      "unknown toolset key",
      "toolsets:\n  t:\n    descripton: typo\n",
      "toolsets.yaml: toolsets.t.descripton: unknown key",
    ],
    [
      "enabled not a boolean",
      "toolsets:\n  t:\n    enabled: maybe\n",
      "toolsets.yaml: toolsets.t.enabled: expected a boolean (true/false, yes/no, on/off or 1/0)",
    ],
    [
      "tools not a list",
      "toolsets:\n  t:\n    tools: { a: 1 }\n",
      "toolsets.yaml: toolsets.t.tools: expected a list",
    ],
    [
      "bad prerequisite",
      "toolsets:\n  t:\n    prerequisites:\n      - cmd: ls\n",
      "toolsets.yaml: toolsets.t.prerequisites[0].cmd: unknown key",
    ],
    [
      "bad nested parameter",
      withTool(
        '{ name: c, description: d, command: "true", parameters: { p: { type: array, items: { type: text } } } }',
      ),
      "toolsets.yaml: toolsets.linux/host.tools[2].parameters.p.items.type: expected one of string, integer",
    ],
    [
      "prerequisite with both forms",
      "toolsets:\n  t:\n    prerequisites:\n      - { env: [A], command: ls }\n",
      "toolsets.yaml: toolsets.t.prerequisites[0]: expected `command` or `env`, not both",
    ],
    ["unknown top-level key", "toolset:\n  t: {}\n", "toolsets.yaml: (top level).toolset: unknown key"],
    ["not a mapping", "- a\n- b\n", "toolsets.yaml: expected a mapping"],
  ]
  for (const [name, text, message] of invalid) {
    test(`invalid: ${name}`, () => {
      expect(parseError(text)).toStartWith(message)
    })
  }

  test("YAML syntax errors carry file, line and column", () => {
    expect(parseError("toolsets:\n  t:\n    description: [unclosed\n")).toMatch(
      /^toolsets\.yaml:4:1: YAML syntax error: /,
    )
    expect(parseError("toolsets:\n  t: {}\n  t: {}\n")).toMatch(
      /^toolsets\.yaml:3:3: YAML syntax error: .*unique/,
    )
  })
})

describe("buildToolsets from checked definitions", () => {
  // The binary inlines the built-in definitions as JSON (build.ts) and builds their tools at every
  // start without checking each command with bash again: the placeholders found at parse time
  // must survive that trip, and a tool must still refuse what its template refuses.
  test("definitions through JSON build the same tools, which render and refuse as before", () => {
    const parsed = parseToolsetFile(VALID, "demo.yaml")
    const [direct] = buildToolsets(parsed)
    const [inlined] = buildToolsets(JSON.parse(JSON.stringify(parsed)))
    const get = inlined!.tools[0] as YamlTool
    expect(get.parameters).toEqual(direct!.tools[0]!.parameters)
    expect(get.parameters.ns).toMatchObject({ type: "string", required: false })
    const rendered = get.render({ kind: "pods", ns: "web", lines: 5 })
    expect(rendered.env).toMatchObject({ DUPIN_P_kind: "pods", DUPIN_P_ns: "web", DUPIN_P_lines: "5" })
    expect(rendered.display).toBe("kubectl get pods -n web --chunk-size 5")
    expect(() => get.render({ kind: "--all", lines: 5 })).toThrow(/starts with "-"/)
  })
})

describe("mergeToolsetSources", () => {
  const builtin = parseToolsetFile(VALID, "builtin.yaml")

  test("config may switch a toolset off and set its config; custom files win", () => {
    const merged = mergeToolsetSources({
      builtin,
      config: { "demo/core": { enabled: false, config: { url: "http://y" } } },
      custom: [],
    })
    expect(merged[0]).toMatchObject({ name: "demo/core", enabled: false, config: { url: "http://y" } })
    expect(merged[0]!.tools.length).toBe(2)

    const custom = parseToolsetFile(
      'toolsets:\n  demo/core:\n    description: replaced\n    tools: [{ name: only, description: d, command: "true" }]\n',
      "custom.yaml",
    )
    const replaced = mergeToolsetSources({ builtin, config: { "demo/core": { enabled: false } }, custom })
    expect(replaced[0]).toMatchObject({ description: "replaced", fileName: "custom.yaml" })
    expect(replaced[0]!.tools.map((t) => t.name)).toEqual(["only"])

    const reenabled = mergeToolsetSources({
      builtin,
      config: { "demo/core": { enabled: false } },
      custom: parseToolsetFile("toolsets:\n  demo/core: { enabled: true }\n", "custom.yaml"),
    })
    expect(reenabled[0]).toMatchObject({ enabled: true, description: "Demo tools" })
  })

  test("config may define a whole new toolset", () => {
    const merged = mergeToolsetSources({
      builtin,
      config: {
        "team/x": { description: "ours", tools: [{ name: "team_x", description: "d", command: "true" }] },
      },
      custom: [],
    })
    expect(merged.map((d) => d.name)).toEqual(["demo/core", "team/x"])
  })

  test("an override of an unknown toolset is an error naming it", () => {
    expect(() =>
      mergeToolsetSources({
        builtin,
        config: { "kubernetes/typo": { enabled: true } },
        custom: [],
        configFileName: "dupin.yaml",
      }),
    ).toThrow('dupin.yaml: toolsets.kubernetes/typo: unknown toolset "kubernetes/typo"')
    expect(() =>
      mergeToolsetSources({ builtin, config: { "demo/core": { enabled: "sometimes" } }, custom: [] }),
    ).toThrow("config: toolsets.demo/core.enabled: expected a boolean (true/false, yes/no, on/off or 1/0)")
  })

  test("tool names must be unique across toolsets", () => {
    const other = parseToolsetFile(
      'toolsets:\n  other:\n    tools: [{ name: demo_get, description: d, command: "true" }]\n',
      "other.yaml",
    )
    expect(() => buildToolsets([...builtin, ...other])).toThrow(
      'other.yaml: toolsets.other: tool name "demo_get" is already used by toolset demo/core (builtin.yaml)',
    )
  })
})
