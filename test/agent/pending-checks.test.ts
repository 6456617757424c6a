/**
 * The first request does not wait for the prerequisite checks (issue 19: `kubectl version` held
 * every first question after start). A toolset still being checked is offered; a call to one of
 * its tools waits for the check, runs if it passes, and is refused with the toolset and the reason
 * if it fails; later requests leave a failed toolset out.
 */
import { afterEach, beforeEach, expect, test } from "bun:test"
import { buildInitialAskMessages } from "../../src/agent/prompt/messages.ts"
import type { ChatMessage } from "../../src/llm/types.ts"
import { CallablePrerequisite, type PrerequisiteOutcome } from "../../src/tool/prerequisite.ts"
import { Toolset } from "../../src/tool/toolset.ts"
import { engine } from "../support/engine.ts"
import { type FakeProvider, type RecordedRequest, startFakeProvider } from "../support/fake-provider.ts"
import { EchoTool } from "../support/tools.ts"
import { toolNames } from "./small-window-support.ts"

/** A toolset whose check answers only when the test says so. */
function gated(name: string, tool: EchoTool) {
  let answer: (outcome: PrerequisiteOutcome) => void = () => {}
  const outcome = new Promise<PrerequisiteOutcome>((resolve) => {
    answer = resolve
  })
  const toolset = new Toolset({
    name,
    llmInstructions: `Use ${tool.name} for ${name}.`,
    tools: [tool],
    prerequisites: [new CallablePrerequisite({ callable: () => outcome })],
  })
  return { toolset, answer }
}

function toolMessage(request: RecordedRequest | undefined, id: string): string {
  const messages = (request?.body?.messages ?? []) as ChatMessage[]
  return String(messages.find((m) => m.role === "tool" && m.tool_call_id === id)?.content ?? "")
}

let fake: FakeProvider
beforeEach(async () => {
  fake = await startFakeProvider()
})
afterEach(async () => {
  await fake.stop()
})

test("the first request carries a pending toolset's tools; a call into it waits, and is refused when the check fails", async () => {
  const kube = gated("kubernetes/core", new EchoTool("kubectl_get"))
  const steady = new Toolset({ name: "steady", tools: [new EchoTool("steady_echo")] })
  const llm = engine(fake, { toolsets: [kube.toolset, steady] })
  const messages = await buildInitialAskMessages({
    initialUserPrompt: "why?",
    toolExecutor: llm.toolExecutor,
  })
  // Described as available while its check runs: the prompt is the one every check passing gives.
  expect(String(messages[0]?.content)).toContain("Use kubectl_get for kubernetes/core.")
  expect(String(messages[0]?.content)).not.toContain("Unavailable toolsets")
  fake.script(
    { toolCalls: [{ id: "k", name: "kubectl_get", arguments: { text: "pods" } }] },
    { toolCalls: [{ id: "s", name: "steady_echo", arguments: { text: "hi" } }] },
    { content: "done" },
  )
  const run = llm.run(messages)
  // The model's call came back before the check did: it waits for the check, which then fails.
  await waitFor(() => fake.requests.length === 1)
  expect(toolNames(fake.requests[0]!)).toEqual(["kubectl_get", "steady_echo"])
  await Bun.sleep(30)
  expect(fake.requests).toHaveLength(1)
  kube.answer([false, "kubectl not found on PATH"])
  const result = await run

  expect(result.answer).toBe("done")
  const tool = kube.toolset.tools[0] as EchoTool
  expect(tool.calls).toEqual([])
  expect(toolMessage(fake.requests[1], "k")).toContain(
    "kubectl_get was not run: toolset kubernetes/core is unavailable (kubectl not found on PATH)",
  )
  expect(result.toolCalls?.find((c) => c.tool_call_id === "k")?.result.status).toBe("error")
  // Later requests leave the failed toolset out; the steady one runs as always.
  expect(toolNames(fake.requests[1]!)).toEqual(["steady_echo"])
  expect(toolNames(fake.requests[2]!)).toEqual(["steady_echo"])
  expect(toolMessage(fake.requests[2], "s")).toContain("echo: hi")
})

test("a pending toolset whose check passes runs its call once the check is done", async () => {
  const kube = gated("kubernetes/core", new EchoTool("kubectl_get"))
  const llm = engine(fake, { toolsets: [kube.toolset] })
  fake.script(
    { toolCalls: [{ id: "k", name: "kubectl_get", arguments: { text: "pods" } }] },
    { content: "done" },
  )
  const run = llm.run([{ role: "user", content: "why?" }])
  await waitFor(() => fake.requests.length === 1)
  expect(toolNames(fake.requests[0]!)).toEqual(["kubectl_get"])
  const tool = kube.toolset.tools[0] as EchoTool
  await Bun.sleep(30)
  expect(tool.calls).toEqual([])
  kube.answer([true, ""])
  const result = await run

  expect(result.answer).toBe("done")
  expect(tool.calls).toEqual([{ text: "pods" }])
  expect(toolMessage(fake.requests[1], "k")).toContain("echo: pods")
  expect(toolNames(fake.requests[1]!)).toEqual(["kubectl_get"])
})

test("a check that fails without a process (config, env) is settled before the first request", async () => {
  const failing = new Toolset({
    name: "prometheus/metrics",
    tools: [new EchoTool("execute_prometheus_query")],
    prerequisites: [new CallablePrerequisite({ callable: () => [false, "PROMETHEUS_URL is not set"] })],
  })
  const steady = new Toolset({ name: "steady", tools: [new EchoTool("steady_echo")] })
  const llm = engine(fake, { toolsets: [failing, steady] })
  const messages = await buildInitialAskMessages({
    initialUserPrompt: "why?",
    toolExecutor: llm.toolExecutor,
  })
  expect(String(messages[0]?.content)).toContain("- prometheus/metrics: PROMETHEUS_URL is not set")
  fake.script({ content: "done" })
  await llm.run(messages)
  expect(toolNames(fake.requests[0]!)).toEqual(["steady_echo"])
})

async function waitFor(done: () => boolean): Promise<void> {
  const until = Date.now() + 5000
  while (!done()) {
    if (Date.now() > until) throw new Error("timed out")
    await Bun.sleep(2)
  }
}
