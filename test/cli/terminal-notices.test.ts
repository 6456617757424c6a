// Issue 21 item 7: what the terminal tells (or failed to tell) the person at it.

import { describe, expect, test } from "bun:test"
import { approveAllSaying } from "../../src/cli/ask/approval.ts"
import { unavailableNotice } from "../../src/cli/ask/banner.ts"
import { Progress } from "../../src/cli/ask/progress.ts"
import { finishedLine } from "../../src/cli/ask/tool-lines.ts"
import { style } from "../../src/cli/render/style.ts"
import { Config } from "../../src/core/config.ts"
import { createRuntime } from "../../src/runtime/runtime.ts"
import { Toolset } from "../../src/tool/toolset.ts"
import { cliEnv, runCli, SUBPROCESS_TIMEOUT_MS, tempFile } from "./support.ts"

describe("the terminal says what happened", () => {
  test("a tool still running when the run stops gets a stopped line", () => {
    let out = ""
    const progress = new Progress({ write: (text) => (out += text), now: () => 1000 })
    progress.begin()
    progress.onToolCall({ id: "c1", type: "function", function: { name: "slow", arguments: '{"n":1}' } })
    progress.onEvent({ event: "start_tool_calling", data: { tool_name: "slow", id: "c1" } })
    progress.end()
    expect(out).toContain("■ slow(n=1) stopped")
  })

  test("a truncated result is marked on its line", () => {
    const plain = style(false)
    const result = {
      status: "success",
      data: "a\nb\n[output cut: 5000 more bytes were not kept]",
      error: null,
      params: {},
    }
    expect(finishedLine("big(n=1)", "1.0s", result as never, plain)).toContain("(output truncated)")
    const whole = { ...result, data: "all of it" }
    expect(finishedLine("small(n=1)", "1.0s", whole as never, plain)).not.toContain("truncated")
  })

  test("a result the context cap cut for the model is told under its line", () => {
    let out = ""
    const progress = new Progress({ write: (text) => (out += text), now: () => 1000 })
    progress.begin()
    progress.onToolCall({
      id: "c1",
      type: "function",
      function: { name: "logs", arguments: '{"pod":"api"}' },
    })
    progress.onEvent({ event: "start_tool_calling", data: { tool_name: "logs", id: "c1" } })
    progress.onEvent({
      event: "tool_calling_result",
      data: {
        tool_call_id: "c1",
        role: "tool",
        description: "logs",
        name: "logs",
        result: { status: "success", data: "x".repeat(100), error: null, params: { pod: "api" } },
      },
    } as never)
    const truncation = {
      tool_call_id: "c1",
      start_index: 0,
      end_index: 10,
      tool_name: "logs",
      original_token_count: 90000,
    }
    progress.onEvent({ event: "token_count", data: { metadata: { truncations: [truncation] } } } as never)
    progress.onEvent({ event: "token_count", data: { metadata: { truncations: [truncation] } } } as never)
    expect(out.split("output truncated for the model").length - 1).toBe(1)
    expect(out).toContain("logs(pod=api) output truncated for the model (about 90000 tokens)")
  })

  test("the failed-toolset notice does not depend on words in the question", () => {
    const kube = new Toolset({ name: "kubernetes/core", enabled: true, tools: [] })
    kube.status = "failed"
    kube.error = "kubectl not found on PATH"
    // The README's own headline question says neither pod nor kubectl.
    const notice = unavailableNotice([kube])
    expect(notice).toContain("kubernetes/core is not available (kubectl not found on PATH)")
  })

  test("--yes says which command it approved", async () => {
    const lines: string[] = []
    const approve = approveAllSaying((line) => lines.push(line))
    const decision = await approve({
      tool_call_id: "c1",
      tool_name: "restart_service",
      description: "systemctl restart nginx",
      params: { service: "nginx" },
    })
    expect(decision).toBe(true)
    expect(lines).toEqual(["approved by --yes: systemctl restart nginx"])
  })

  test("/model takes a provider id like --model when there is no modelList", () => {
    const runtime = createRuntime(new Config({ model: "openai/gpt-4.1", env: { OPENAI_API_KEY: "k" } }))
    expect(runtime.model("openai/gpt-4o-mini", { providerId: true }).info.id).toBe("openai/gpt-4o-mini")
    // A request's model is still one of the configured names (spec rule 2), even once built.
    expect(() => runtime.model("openai/gpt-4o-mini")).toThrow("Unknown model")
  })

  test(
    "MODEL ignored because the config sets model: says so",
    async () => {
      const config = tempFile("dupin.yaml", "model: openai/gpt-4.1\n")
      const result = await runCli(["models", "--config", config], {
        env: { ...cliEnv(), MODEL: "anthropic/claude-sonnet-4-5" },
      })
      expect(result.code).toBe(0)
      expect(result.stderr).toContain("MODEL=anthropic/claude-sonnet-4-5 is ignored")
      expect(result.stderr).toContain("model: openai/gpt-4.1")
    },
    SUBPROCESS_TIMEOUT_MS,
  )
})
