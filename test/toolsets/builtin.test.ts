import { describe, expect, test } from "bun:test"
import { builtinToolsetSources } from "../../src/toolset/builtin/index.ts"
import { CommandPrerequisite } from "../../src/toolset/command-prerequisite.ts"
import { buildToolsets, parseToolsetFile } from "../../src/toolset/loader.ts"
import { YamlTool } from "../../src/toolset/yaml-tool.ts"

const CLUSTER_TOOLSETS: Record<string, string[]> = {
  "kubernetes/core": [
    "kubectl_describe",
    "kubectl_get_by_name",
    "kubectl_get_by_kind_in_namespace",
    "kubectl_get_by_kind_in_cluster",
    "kubectl_find_resource",
    "kubectl_get_yaml",
    "kubectl_events",
    "kubernetes_jq_query",
    "kubernetes_count",
  ],
  "kubernetes/logs": ["fetch_pod_logs"],
  "kubernetes/live-metrics": ["kubectl_top_pods", "kubectl_top_nodes"],
  "helm/core": ["helm_list", "helm_status", "helm_history", "helm_values", "helm_manifest"],
  "docker/core": [
    "docker_ps",
    "docker_inspect",
    "docker_logs",
    "docker_images",
    "docker_stats",
    "docker_events",
  ],
}

// The only subcommands these toolsets may run: anything else (delete, apply, exec, rollback,
// uninstall, rm, kill, ...) is a write and must not appear.
const READ_ONLY: Record<string, RegExp> = {
  kubectl: /^(version|describe|get|events|logs|top)$/,
  helm: /^(version|list|status|history|get values|get manifest)$/,
  docker: /^(--version|ps|inspect|logs|images|stats|events)$/,
}

function toolsets() {
  return buildToolsets(builtinToolsetSources().flatMap((s) => parseToolsetFile(s.text, s.fileName)))
}

describe("built-in toolsets", () => {
  test("every embedded file loads through the strict loader and builds", () => {
    const sources = builtinToolsetSources()
    expect(sources.map((s) => s.fileName)).toEqual(
      expect.arrayContaining([
        "toolsets/kubernetes-core.yaml",
        "toolsets/kubernetes-logs.yaml",
        "toolsets/kubernetes-live-metrics.yaml",
        "toolsets/helm.yaml",
        "toolsets/docker.yaml",
      ]),
    )
    for (const source of sources) expect(() => parseToolsetFile(source.text, source.fileName)).not.toThrow()
    expect(() => toolsets()).not.toThrow()
  })

  test("the cluster toolsets have their HolmesGPT-compatible tools, enabled by default", () => {
    const byName = new Map(toolsets().map((t) => [t.name, t]))
    for (const [name, tools] of Object.entries(CLUSTER_TOOLSETS)) {
      const toolset = byName.get(name)
      expect(toolset?.enabled).toBe(true)
      expect(toolset?.tools.map((t) => t.name)).toEqual(tools)
      expect(toolset?.llmInstructions?.length).toBeGreaterThan(50)
    }
  })

  test("every tool has a description, a timeout, and a pattern or enum on each string parameter", () => {
    for (const toolset of toolsets().filter((t) => t.name in CLUSTER_TOOLSETS)) {
      for (const tool of toolset.tools) {
        expect(tool.description.length).toBeGreaterThan(30)
        expect(tool.timeout).toBeGreaterThan(0)
        for (const [name, param] of Object.entries(tool.parameters)) {
          if (param.type !== "string") continue
          expect({ tool: tool.name, name, guarded: Boolean(param.pattern ?? param.enum) }).toEqual({
            tool: tool.name,
            name,
            guarded: true,
          })
        }
      }
    }
  })

  test("commands only run read-only subcommands", () => {
    const seen = new Set<string>()
    for (const toolset of toolsets().filter((t) => t.name in CLUSTER_TOOLSETS)) {
      const sources = [
        ...toolset.tools.map((t) => (t as YamlTool).template.source),
        ...toolset.prerequisites.filter((p) => p instanceof CommandPrerequisite).map((p) => p.command),
      ]
      for (const source of sources) {
        for (const m of source.matchAll(/\b(kubectl|helm|docker) +((?:get +)?[a-z-]+)/g)) {
          const [, program, sub] = m as unknown as [string, string, string]
          const normalized = sub.replace(/ +/g, " ")
          expect({ program, sub: normalized, allowed: READ_ONLY[program]!.test(normalized) }).toEqual({
            program,
            sub: normalized,
            allowed: true,
          })
          seen.add(`${program} ${normalized}`)
        }
      }
      for (const tool of toolset.tools) expect(tool).toBeInstanceOf(YamlTool)
    }
    // The scan found the commands (a broken regex would pass vacuously).
    expect(seen.size).toBeGreaterThanOrEqual(18)
  })
})
