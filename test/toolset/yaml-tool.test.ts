// biome-ignore-all lint/suspicious/noTemplateCurlyInString: templates are shell text, where ${…} is shell syntax
import { describe, expect, test } from "bun:test"
import { existsSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ToolParameter } from "../../src/tool/parameter.ts"
import { ToolResultStatus } from "../../src/tool/result.ts"
import { DEFAULT_TOOL_LIMITS, type ToolContext } from "../../src/tool/tool.ts"
import { buildToolEnv } from "../../src/tool/tool-env.ts"
import { buildToolsets, parseToolsetFile } from "../../src/toolset/loader.ts"
import { YamlTool } from "../../src/toolset/yaml-tool.ts"

function context(overrides: Partial<ToolContext> = {}): ToolContext {
  return {
    signal: new AbortController().signal,
    toolCallId: "call-1",
    limits: DEFAULT_TOOL_LIMITS,
    env: buildToolEnv(process.env),
    ...overrides,
  }
}

function tool(command: string, parameters: Record<string, ToolParameter> = {}, extra = {}): YamlTool {
  return new YamlTool({ name: "t", description: "test tool", command, parameters, ...extra })
}

describe("YamlTool", () => {
  test("runs the rendered command and returns its output", async () => {
    const t = tool("printf '%s|' {{ a }} '{{ b }}' \"{{ c }}\"", {
      a: new ToolParameter({ type: "string" }),
      b: new ToolParameter({ type: "string" }),
      c: new ToolParameter({ type: "integer" }),
    })
    const r = await t.run({ a: "x y", b: "$(id)", c: 3 }, context())
    expect(r.status).toBe(ToolResultStatus.SUCCESS)
    expect(r.data).toBe("x y|$(id)|3|")
    expect(r.returnCode).toBe(0)
    expect(r.invocation).toBe("printf '%s|' x y '$(id)' \"3\"")
  })

  test("injection attempts create no file and arrive as data", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dupin-yaml-"))
    const t = tool(`cd ${dir} && printf '%s\\n' {{ v }} '{{ v }}' "{{ v }}"`)
    for (const v of [
      "x; touch P",
      "$(touch P)",
      "`touch P`",
      "' ; touch P ; '",
      '"; touch P; "',
      "a\ntouch P",
    ]) {
      const r = await t.run({ v }, context())
      expect(r.data).toBe(`${v}\n${v}\n${v}\n`)
      expect(existsSync(join(dir, "P"))).toBe(false)
    }
  })

  test("empty output is NO_DATA", async () => {
    const r = await tool("true").run({}, context())
    expect(r.status).toBe(ToolResultStatus.NO_DATA)
  })

  test("a failing command is an ERROR with exit code and output for the model", async () => {
    const r = await tool("echo 'no such pod' >&2; exit 3").run({}, context())
    expect(r.status).toBe(ToolResultStatus.ERROR)
    expect(r.returnCode).toBe(3)
    expect(r.error).toContain("exit code 3")
    expect(r.error).toContain("no such pod")
    expect(r.data).toBe("no such pod\n")
  })

  test("a refused value is an ERROR result explaining why, and nothing runs", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dupin-yaml-"))
    const t = tool(`touch ${dir}/ran; echo {{ ns }}`)
    const r = await t.run({ ns: "--all" }, context())
    expect(r.status).toBe(ToolResultStatus.ERROR)
    expect(r.error).toContain('starts with "-"')
    expect(existsSync(join(dir, "ran"))).toBe(false)
    const allowed = tool("echo {{ ns }}", {
      ns: new ToolParameter({ type: "string", allowLeadingDash: true }),
    })
    expect((await allowed.run({ ns: "--all" }, context())).data).toBe("--all\n")
  })

  test("parameters left out do not pick up a DUPIN_P_ variable from the environment", async () => {
    const t = tool("printf '[%s]' {{ v }}", { v: new ToolParameter({ type: "string", required: false }) })
    const r = await t.run({}, context({ env: { ...buildToolEnv(process.env), DUPIN_P_v: "stale" } }))
    expect(r.data).toBe("[]")
  })

  test("output is capped at the configured byte limit", async () => {
    const r = await tool("head -c 100000 /dev/zero | tr '\\0' a").run(
      {},
      context({ limits: { ...DEFAULT_TOOL_LIMITS, outputMaxBytes: 1000 } }),
    )
    expect(r.dataText().startsWith("a".repeat(1000))).toBe(true)
    expect(r.dataText()).toContain("99000 more bytes were not kept")
  })

  test("the timeout kills the command", async () => {
    const started = performance.now()
    const r = await tool("sleep 1000", {}, { timeout: 1 }).run({}, context())
    expect(r.status).toBe(ToolResultStatus.ERROR)
    expect(r.error).toContain("timed out")
    expect(performance.now() - started).toBeLessThan(4000)
  })

  test("requires_approval and the one-liner", () => {
    const t = tool("kubectl delete pod {{ pod }}", {}, { requiresApproval: true })
    expect(t.requiresApproval({ pod: "web-1" })).toBe(true)
    expect(tool("echo").requiresApproval({})).toBe(false)
    expect(t.getParameterizedOneLiner({ pod: "web-1" })).toBe("kubectl delete pod web-1")
  })
})

describe("YAML tools whose placeholders bash would evaluate", () => {
  // The red team's value: bash evaluates the subscript of `a[…]`, running the command inside.
  const dir = mkdtempSync(join(tmpdir(), "dupin-yaml-arith-"))
  const attack = `a[$(touch ${dir}/MARKER)]`
  const commands = {
    for_loop: "for((i=0;i<{{ n }};i++)); do printf %s $i; done",
    subscript: "a[{{ x }}]=1; echo ${!a[@]}",
    arithmetic: "echo $(( {{ x }} + 1 ))",
    declare_integer: "declare -i v={{ x }}; echo $v",
  }

  /** A custom toolset file whose tools take `n`/`x` as the given type, through the real loader. */
  function load(type: string): Map<string, YamlTool> | string {
    const tools = Object.entries(commands).map(
      ([name, command]) =>
        `      - name: ${name}\n        description: d\n        command: ${JSON.stringify(command)}\n` +
        `        parameters:\n          n: { type: ${type}, required: false }\n          x: { type: ${type}, required: false }\n`,
    )
    try {
      const [toolset] = buildToolsets(
        parseToolsetFile(
          `toolsets:\n  arith:\n    description: d\n    tools:\n${tools.join("")}`,
          "custom.yaml",
        ),
      )
      return new Map(toolset!.tools.map((t) => [t.name, t as YamlTool]))
    } catch (error) {
      return (error as Error).message
    }
  }

  test("declared as strings: the toolset is refused at load, or every call is refused before bash runs", async () => {
    const loaded = load("string")
    if (typeof loaded === "string") {
      expect(loaded).toMatch(/custom\.yaml.*declare it `type: integer`/)
      return
    }
    for (const [name, t] of loaded) {
      const args = t.validate({ n: attack, x: attack })
      if (!args.ok) throw new Error(args.error)
      const r = await t.run(args.params, context())
      expect({ name, status: r.status }).toEqual({ name, status: ToolResultStatus.ERROR })
      expect(r.error).toMatch(/must be an integer/)
    }
    expect(existsSync(join(dir, "MARKER"))).toBe(false)
  })

  test("declared as integers: they load and run with integers; a string never reaches bash", async () => {
    const loaded = load("integer")
    expect(typeof loaded).not.toBe("string")
    const tools = loaded as Map<string, YamlTool>
    const outputs = await Promise.all([...tools.values()].map((t) => t.run({ n: 3, x: 2 }, context())))
    expect(outputs.map((r) => r.data)).toEqual(["012", "2\n", "3\n", "2\n"])
    for (const t of tools.values()) {
      expect(t.validate({ n: attack, x: attack }).ok).toBe(false)
      // Past argument validation too (run takes what it is given): the template refuses it again.
      expect((await t.run({ n: attack, x: attack }, context())).error).toMatch(/must be an integer/)
    }
    expect(existsSync(join(dir, "MARKER"))).toBe(false)
  })

  test("a parameter the tool does not declare gets the same treatment", async () => {
    let t: YamlTool
    try {
      t = tool("echo $(( {{ x }} + 1 ))")
    } catch (error) {
      expect((error as Error).message).toMatch(/declare it `type: integer` \(it is undeclared\)/)
      return
    }
    const r = await t.run({ x: attack }, context())
    expect(r.status).toBe(ToolResultStatus.ERROR)
    expect(r.error).toMatch(/The value of x must be an integer/)
    expect(existsSync(join(dir, "MARKER"))).toBe(false)
  })
})
