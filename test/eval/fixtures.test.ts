import { describe, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { basename, join } from "node:path"
import type { TSchema } from "@sinclair/typebox"
import { Value } from "@sinclair/typebox/value"
import { ConfigError } from "../../src/errors.ts"
import { caseToolsets } from "../../src/eval/case-toolsets.ts"
import { loadCases } from "../../src/eval/load-cases.ts"
import { bestMatch } from "../../src/eval/mock-tool.ts"
import { ToolExecutor } from "../../src/tool/executor.ts"
import { DEFAULT_TOOL_LIMITS } from "../../src/tool/tool.ts"
import { assembleToolsets } from "../../src/toolset/assemble.ts"
import { YamlTool } from "../../src/toolset/yaml-tool.ts"
import { caseTree, mockText } from "./support.ts"

const EVALS = join(import.meta.dir, "../../evals")

function loadError(files: Record<string, string>): string {
  const root = caseTree({ bad: files })
  try {
    loadCases([root])
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return (error as Error).message
  }
  throw new Error("the fixture loaded")
}

describe("evals/ (our own cases)", () => {
  const cases = loadCases([EVALS])

  test("at least 15 cases load strictly, each with mocks and tags", () => {
    expect(cases.length).toBeGreaterThanOrEqual(15)
    for (const c of cases) {
      expect(c.mocks.length).toBeGreaterThan(0)
      expect(c.tags.length).toBeGreaterThan(0)
      expect(c.skip).toBeUndefined()
    }
  })

  test("Prometheus sample times (unix seconds) fall in the week before the case's mocked_date", () => {
    const problems: string[] = []
    for (const c of cases) {
      const now = (c.now?.getTime() ?? 0) / 1000
      for (const mock of c.mocks) {
        for (const [stamp] of (mock.data ?? "").matchAll(/(?<=\[)1\d{9}(?:\.\d+)?(?=,)/g)) {
          const seconds = Number(stamp)
          if (seconds > now || seconds < now - 7 * 86_400)
            problems.push(`${c.id}/${basename(mock.file)}: ${new Date(seconds * 1000).toISOString()}`)
        }
      }
    }
    expect([...new Set(problems)]).toEqual([])
  })

  test("dates that name their weekday name the right one (kubectl, helm and systemctl print both)", () => {
    const days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    const months = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split(" ")
    const forms = [
      // kubectl describe: "Fri, 20 Nov 2026"
      { re: /\b(Sun|Mon|Tue|Wed|Thu|Fri|Sat), (\d{1,2}) ([A-Z][a-z]{2}) (\d{4})\b/g, ymd: [4, 3, 2] },
      // helm: "Fri Nov 20 09:48:22 2026"
      { re: /\b(Sun|Mon|Tue|Wed|Thu|Fri|Sat) ([A-Z][a-z]{2}) +(\d{1,2}) [\d:]+ (\d{4})\b/g, ymd: [4, 2, 3] },
      // systemctl: "Fri 2026-11-20 09:58:03 UTC"
      { re: /\b(Sun|Mon|Tue|Wed|Thu|Fri|Sat) (\d{4})-(\d{2})-(\d{2})\b/g, ymd: [2, 3, 4] },
    ]
    const problems: string[] = []
    for (const c of cases) {
      for (const mock of c.mocks) {
        for (const { re, ymd } of forms) {
          for (const m of (mock.data ?? "").matchAll(re)) {
            const [y, mo, d] = ymd.map((i) => m[i] ?? "")
            const month = /^\d+$/.test(mo ?? "") ? Number(mo) - 1 : months.indexOf(mo ?? "")
            const day = days[new Date(Date.UTC(Number(y), month, Number(d))).getUTCDay()]
            if (day !== m[1]) problems.push(`${c.id}/${basename(mock.file)}: "${m[0]}" is a ${day}`)
          }
        }
      }
    }
    expect(problems).toEqual([])
  })

  test("every case states the time its mocks were taken, so ages such as '12m ago' agree with the prompt's now", () => {
    expect(cases.filter((c) => !c.now).map((c) => c.id)).toEqual([])
  })

  test("every mock names a tool of a bundled toolset the case offers", () => {
    for (const c of cases) {
      const offered = caseToolsets(c, []).filter((t) => !t.description.endsWith("(from the case's mocks)"))
      const names = new Set(offered.flatMap((t) => t.tools.map((tool) => tool.name)))
      for (const mock of c.mocks)
        expect(`${c.id}: ${mock.toolName} ${names.has(mock.toolName)}`).toEndWith("true")
    }
  })

  test("each mock's toolset, tool and match_params are those the real tool takes, so a real model's call matches", () => {
    const problems: string[] = []
    for (const c of cases) {
      const offered = caseToolsets(c, [])
      for (const mock of c.mocks) {
        const where = `${c.id}/${basename(mock.file)}`
        const toolset = offered.find((t) => t.name === mock.toolsetName)
        const tool = toolset?.tools.find((t) => t.name === mock.toolName)
        if (!tool) {
          problems.push(`${where}: no tool ${mock.toolName} in toolset ${mock.toolsetName}`)
          continue
        }
        const schema = tool.inputSchema() as { properties?: Record<string, TSchema> }
        for (const [key, value] of Object.entries(mock.matchParams ?? {})) {
          const property = schema.properties?.[key]
          if (!property) problems.push(`${where}: ${mock.toolName} has no parameter ${key}`)
          else if (!Value.Check(property, value))
            problems.push(`${where}: ${key}=${JSON.stringify(value)} is not a valid value`)
        }
      }
    }
    expect(problems).toEqual([])
  })

  test("the call each mock records (line 2's params) passes the real tool's schema and is answered by that mock", async () => {
    const problems: string[] = []
    for (const c of cases) {
      const executor = new ToolExecutor(caseToolsets(c, []), { limits: DEFAULT_TOOL_LIMITS, env: {} })
      await executor.ensureReady()
      for (const mock of c.mocks) {
        const where = `${c.id}/${basename(mock.file)}`
        const recorded = JSON.parse(readFileSync(mock.file, "utf8").split("\n")[1] ?? "{}").params ?? {}
        const prepared = executor.prepare({
          id: "call",
          type: "function",
          function: { name: mock.toolName, arguments: JSON.stringify(recorded) },
        })
        if (prepared.error) problems.push(`${where}: ${prepared.error}`)
        else if (bestMatch(c.mocks, mock.toolName, prepared.params) !== mock)
          problems.push(`${where}: ${JSON.stringify(recorded)} is answered by another mock, or none`)
      }
    }
    expect(problems).toEqual([])
  })

  test("line 2's invocation is the command the bundled YAML tool runs for the recorded call", () => {
    const real = assembleToolsets({
      config: { "prometheus/metrics": { enabled: true } },
      customFiles: [],
      additional: [],
      mcpServers: {},
      flags: {},
      context: { env: {}, runbooks: undefined, protectedPaths: [] },
    })
    const tools = new Map(real.flatMap((t) => t.tools.map((tool) => [tool.name, tool] as const)))
    const problems: string[] = []
    for (const c of cases) {
      for (const mock of c.mocks) {
        const tool = tools.get(mock.toolName)
        if (!(tool instanceof YamlTool)) continue
        const result = JSON.parse(readFileSync(mock.file, "utf8").split("\n")[1] ?? "{}")
        const valid = tool.validate(result.params ?? {})
        const command = valid.ok ? tool.render(valid.params).display.trim() : valid.error
        if (result.invocation !== command)
          problems.push(`${c.id}/${basename(mock.file)}: ${result.invocation} ≠ ${command}`)
      }
    }
    expect(problems).toEqual([])
  })

  test("errors read as the real tools report them: a YAML tool's failure names its command, host_tcp_check's outcome is data", () => {
    const problems: string[] = []
    for (const c of cases) {
      for (const mock of c.mocks.filter((m) => m.status === "error")) {
        if (
          mock.returnCode !== null &&
          !/^Command `[^`]+` failed with exit code \d+\./.test(mock.error ?? "")
        )
          problems.push(`${c.id}/${basename(mock.file)}: ${mock.error}`)
      }
      // A YAML tool's non-zero exit is an error result (src/toolset/yaml-tool.ts), never a success.
      for (const mock of c.mocks.filter((m) => m.status !== "error" && m.returnCode)) {
        problems.push(`${c.id}/${basename(mock.file)}: ${mock.status} with exit code ${mock.returnCode}`)
      }
      // host_disk_usage runs df with -x tmpfs -x devtmpfs -x squashfs: those never show.
      for (const mock of c.mocks.filter((m) => m.toolName === "host_disk_usage")) {
        if (/^\S+\s+(tmpfs|devtmpfs|squashfs)\s/m.test(mock.data ?? "") || /^tmpfs\s/m.test(mock.data ?? ""))
          problems.push(`${c.id}/${basename(mock.file)}: lists a filesystem df was told to leave out`)
      }
      // host_tcp_check reports every outcome as data, as src/toolset/internet/tcp-check.ts does.
      for (const mock of c.mocks.filter((m) => m.toolName === "host_tcp_check")) {
        if (mock.status !== "success" || !/^(open|timeout|closed): /.test(mock.data ?? ""))
          problems.push(`${c.id}/${basename(mock.file)}: ${mock.status} ${mock.data}`)
      }
    }
    expect(problems).toEqual([])
  })
})

describe("HolmesGPT's layout", () => {
  test("a case folder written in that layout loads unchanged", () => {
    const root = caseTree({
      "07_pod_restarts": {
        "test_case.yaml": `user_prompt:
  - "Why does the api pod restart?"
  - "What is wrong with << { \\"type\\": \\"pod\\", \\"name\\": \\"api-0\\" } >>?"
expected_output: The api-0 pod runs out of memory
tags:
  - kubernetes
  - easy
description: two phrasings of one question
before_test: kubectl apply -f ./manifest.yaml
after_test: kubectl delete -f ./manifest.yaml
setup_timeout: 120
port_forwards: []
evaluation:
  correctness: 1
mock_policy: always_mock
`,
        "toolsets.yaml":
          "toolsets:\n  kubernetes/core:\n    enabled: true\n  kubernetes/logs:\n    enabled: false\n",
        "manifest.yaml": "apiVersion: v1\nkind: Pod\n",
        "kubectl_describe.txt": `{"toolset_name": "kubernetes/core", "tool_name": "kubectl_describe", "match_params": {"kind": "pod", "name": "api-0"}}
{"schema_version": "robusta:v1.0.0", "status": "success", "error": null, "return_code": 0, "url": null, "invocation": "kubectl describe pod api-0", "params": {"kind": "pod", "name": "api-0"}}
Name: api-0
    Last State:     Terminated
      Reason:       OOMKilled
`,
        "notes.txt": "not a mock: HolmesGPT skips text files that do not start with a JSON header\n",
      },
    })
    const cases = loadCases([root])
    expect(cases.map((c) => c.id)).toEqual(["07_pod_restarts[1]", "07_pod_restarts[2]"])
    const [first] = cases
    expect(first?.expectedOutput).toEqual(["The api-0 pod runs out of memory"])
    expect(first?.toolsets).toEqual({ "kubernetes/core": true, "kubernetes/logs": false })
    expect(first?.mocks).toHaveLength(1)
    expect(first?.mocks[0]?.data).toContain("OOMKilled")
    const names = caseToolsets(first!, []).map((t) => t.name)
    expect(names).toContain("kubernetes/core")
    expect(names).not.toContain("kubernetes/logs")
  })

  test("skip and never_mock cases are reported as skipped, with the reason", () => {
    const root = caseTree({
      a: {
        "test_case.yaml":
          "user_prompt: q\nexpected_output: [x]\nskip: true\nskip_reason: needs a live cluster\n",
      },
      b: { "test_case.yaml": "user_prompt: q\nexpected_output: [x]\nmock_policy: never_mock\n" },
    })
    const [a, b] = loadCases([root])
    expect(a?.skip).toBe("needs a live cluster")
    expect(b?.skip).toContain("never_mock")
  })

  test("tools only HolmesGPT ships are offered from their mocks, with the mocks' parameters", () => {
    const root = caseTree({
      loki: {
        "test_case.yaml": "user_prompt: q\nexpected_output: x\n",
        "loki.txt": mockText("loki_query", { query: '{app="api"}', limit: 100 }, "line\n", "grafana/loki"),
      },
    })
    const [evalCase] = loadCases([root])
    const loki = caseToolsets(evalCase!, []).find((t) => t.name === "grafana/loki")
    expect(loki?.tools.map((t) => t.name)).toEqual(["loki_query"])
    expect(Object.keys(loki?.tools[0]?.parameters ?? {})).toEqual(["query", "limit"])
  })
})

describe("strict parsing names the file and the key", () => {
  test("an unknown key", () => {
    const message = loadError({
      "test_case.yaml": "user_prompt: q\nexpected_output: x\nexpected_outptu: y\n",
    })
    expect(message).toContain(
      "bad/test_case.yaml: expected_outptu: unknown key: did you mean expected_output?",
    )
  })

  test("a missing expected_output", () => {
    const message = loadError({ "test_case.yaml": "user_prompt: q\ntags: [a]\n" })
    expect(message).toContain("bad/test_case.yaml: expected_output: missing")
  })

  test("a value of the wrong form", () => {
    expect(loadError({ "test_case.yaml": "user_prompt: q\nexpected_output: x\ntags: easy\n" })).toContain(
      "tags: must be a list of strings",
    )
  })

  test("a mock whose header is not JSON", () => {
    const message = loadError({
      "test_case.yaml": "user_prompt: q\nexpected_output: x\n",
      "m.txt": '{"tool_name": "kubectl_describe",\n{"status": "success"}\nout\n',
    })
    expect(message).toContain("bad/m.txt: line 1: not valid JSON")
  })

  test("a mock header with an unknown key", () => {
    const message = loadError({
      "test_case.yaml": "user_prompt: q\nexpected_output: x\n",
      "m.txt": '{"tool_name": "kubectl_describe", "match": {}}\n{"status": "success"}\nout\n',
    })
    expect(message).toContain('bad/m.txt: line 1: unknown key "match"')
  })

  test("a mock without its result line (the old two-part format)", () => {
    const message = loadError({
      "test_case.yaml": "user_prompt: q\nexpected_output: x\n",
      "m.txt": '{"tool_name": "kubectl_describe"}\nraw output here\n',
    })
    expect(message).toContain("bad/m.txt: line 2: not valid JSON")
  })

  test("a mock result with an unknown status", () => {
    const message = loadError({
      "test_case.yaml": "user_prompt: q\nexpected_output: x\n",
      "m.txt": '{"tool_name": "kubectl_describe"}\n{"status": "ok"}\nout\n',
    })
    expect(message).toContain("bad/m.txt: line 2: status must be one of")
  })

  test("a folder without cases", () => {
    const root = caseTree({ empty: { "README.md": "no cases" } })
    expect(() => loadCases([root])).toThrow("no test_case.yaml in it or in its subfolders")
  })

  test("a folder that does not exist, and a file, are told apart", () => {
    const missing = join(EVALS, "no-such-folder")
    expect(() => loadCases([missing])).toThrow(`${missing}: no such folder`)
    const file = join(EVALS, "01_crashloop_bad_config", "test_case.yaml")
    expect(() => loadCases([file])).toThrow(`${file}: not a folder; give the folder of eval cases`)
  })
})

describe("mock files", () => {
  test("the raw output after line 2 is the data; without it, line 2's own data", () => {
    const root = caseTree({
      m: {
        "test_case.yaml": "user_prompt: q\nexpected_output: x\n",
        "a.txt":
          '{"tool_name": "helm_list", "match_params": {"namespace": "a"}}\n{"status": "success", "data": "old"}\nNAME\tSTATUS\n',
        "b.txt":
          '{"tool_name": "helm_list", "match_params": {"namespace": "b"}}\n{"status": "no_data", "data": "inline only"}\n',
        "c.txt":
          '{"tool_name": "helm_list"}\n{"status": "error", "error": "helm: not found", "return_code": 127}\n',
      },
    })
    const [evalCase] = loadCases([root])
    expect(evalCase?.mocks.map((m) => [m.status, m.data, m.error, m.returnCode, m.matchParams])).toEqual([
      ["success", "NAME\tSTATUS\n", null, null, { namespace: "a" }],
      ["no_data", "inline only", null, null, { namespace: "b" }],
      ["error", null, "helm: not found", 127, undefined],
    ])
  })
})
