import { describe, expect, test } from "bun:test"
import { buildSystemPrompt, buildUserPrompt } from "../../src/agent/prompt/build.ts"
import { buildInitialAskMessages } from "../../src/agent/prompt/messages.ts"
import { PROMPT_SECTIONS, resolveSections } from "../../src/agent/prompt/sections.ts"
import { parseEnabledPrompts } from "../../src/config/env.ts"
import { ConfigError } from "../../src/errors.ts"
import { ToolExecutor } from "../../src/tool/executor.ts"
import { StaticPrerequisite } from "../../src/tool/prerequisite.ts"
import { DEFAULT_TOOL_LIMITS } from "../../src/tool/tool.ts"
import { Toolset } from "../../src/tool/toolset.ts"
import { createPlanningToolset } from "../../src/toolset/todo.ts"
import { EchoTool } from "../support/tools.ts"

describe("prompt sections", () => {
  test("all sections are on by default except ai_safety", () => {
    const on = resolveSections(undefined)
    expect(on.has("ai_safety")).toBe(false)
    expect([...on].sort()).toEqual(PROMPT_SECTIONS.filter((s) => s !== "ai_safety").sort())
  })

  test("behavior_controls switch sections, including ai_safety on", () => {
    const on = resolveSections(undefined, { ai_safety: true, style_guide: false, todowrite_reminder: false })
    expect(on.has("ai_safety")).toBe(true)
    expect(on.has("style_guide")).toBe(false)
    expect(on.has("todowrite_reminder")).toBe(false)
  })

  test("ENABLED_PROMPTS restricts and the API cannot re-enable what it excludes", () => {
    const allowed = parseEnabledPrompts("intro, style_guide")
    const on = resolveSections(allowed, { general_instructions: true, ai_safety: true, style_guide: false })
    expect([...on]).toEqual(["intro"])
  })

  test("ENABLED_PROMPTS=none leaves no section and no system prompt text", () => {
    const on = resolveSections(parseEnabledPrompts("none"), { intro: true })
    expect(on.size).toBe(0)
    expect(buildSystemPrompt({ sections: on, toolsets: [] })).toBe("")
    expect(buildUserPrompt({ ask: "why?", sections: on })).toBe("why?")
  })

  test("an unknown ENABLED_PROMPTS key is a config error naming it", () => {
    expect(() => parseEnabledPrompts("intro,stlye_guide")).toThrow(ConfigError)
    expect(() => parseEnabledPrompts("intro,stlye_guide")).toThrow("stlye_guide")
  })
})

describe("prompt content", () => {
  const executor = () => {
    const ok = new Toolset({
      name: "ok/tools",
      description: "Works",
      tools: [new EchoTool()],
      llmInstructions: "Use echo wisely.",
    })
    const broken = new Toolset({
      name: "kubernetes/core",
      description: "Cluster",
      prerequisites: [new StaticPrerequisite(false, "kubectl not found on PATH")],
      docsUrl: "https://example.com/k8s",
    })
    const off = new Toolset({ name: "bash", enabled: false })
    return new ToolExecutor([ok, broken, off, createPlanningToolset()], {
      limits: DEFAULT_TOOL_LIMITS,
      env: {},
    })
  }

  test("enabled toolsets bring their instructions; failed and disabled ones are listed with why", async () => {
    const messages = await buildInitialAskMessages({
      initialUserPrompt: "why is checkout-api crashlooping?",
      toolExecutor: executor(),
      clusterName: "prod-eu-1",
      systemPromptAdditions: "Our services log JSON.",
    })
    const system = String(messages[0]!.content)
    expect(system).toContain("Use echo wisely.")
    expect(system).toContain("kubernetes/core: kubectl not found on PATH (see https://example.com/k8s)")
    expect(system).toContain("bash: disabled in configuration")
    expect(system).toContain('named "prod-eu-1"')
    expect(system).toContain("Our services log JSON.")
    expect(system).toContain("TodoWrite")
    expect(system).toContain("untrusted data")
    const user = String(messages[1]!.content)
    expect(user.endsWith("why is checkout-api crashlooping?")).toBe(true)
    expect(user).toContain("Current time:")
  })

  test("the system prompt is byte-stable across turns; the time lives in the user prompt", async () => {
    const exec = executor()
    const a = await buildInitialAskMessages({ initialUserPrompt: "a", toolExecutor: exec, now: new Date(0) })
    const b = await buildInitialAskMessages({
      initialUserPrompt: "b",
      toolExecutor: exec,
      now: new Date(86_400_000),
    })
    expect(a[0]).toEqual(b[0]!)
    expect(a[1]!.content).not.toEqual(b[1]!.content)
  })

  test("attached files land in the user prompt (files section) and can be switched off", async () => {
    const exec = executor()
    const files = [{ name: "stdin", content: "Back-off restarting failed container" }]
    const on = await buildInitialAskMessages({ initialUserPrompt: "q", toolExecutor: exec, files })
    expect(String(on[1]!.content)).toContain(
      '<attached_file name="stdin">\nBack-off restarting failed container',
    )
    const off = await buildInitialAskMessages({
      initialUserPrompt: "q",
      toolExecutor: exec,
      files,
      sections: resolveSections(undefined, { files: false }),
    })
    expect(String(off[1]!.content)).not.toContain("Back-off")
  })
})
