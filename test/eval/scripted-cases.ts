/**
 * A scripted model for whole eval runs: it plays the agent (one tool call from the case's mocks,
 * with the arguments the mock file records, then an answer) and the judge (pass when the answer holds every expected element word for word).
 * It finds the case from the question in the request, so any number of cases and models can run
 * in parallel against one fake provider.
 */
import { readFileSync } from "node:fs"
import type { EvalCase } from "../../src/eval/case-file.ts"
import type { Mock } from "../../src/eval/mock-file.ts"
import type { FakeStep, RecordedRequest } from "../support/fake-provider.ts"

export type ScriptOptions = {
  /** Case ids the agent answers wrongly, so the report shows failures. */
  wrong?: ReadonlySet<string>
}

export function scriptedEvalStep(cases: readonly EvalCase[], options: ScriptOptions = {}) {
  return (request: RecordedRequest): FakeStep => {
    const messages = (request.body?.messages ?? []) as { role: string; content: unknown }[]
    if (request.body?.response_format) return judgeStep(messages)
    const question = messages.find((m) => m.role === "user")
    const text = typeof question?.content === "string" ? question.content : JSON.stringify(question?.content)
    const evalCase = cases.find((c) => text.includes(c.userPrompt))
    if (!evalCase) return { content: "I cannot tell which case this is." }
    if (messages.at(-1)?.role !== "tool") {
      const mock = evalCase.mocks.find((m) => m.matchParams) ?? evalCase.mocks[0]
      if (mock) return { toolCalls: [{ name: mock.toolName, arguments: recordedCall(mock) }] }
    }
    if (options.wrong?.has(evalCase.id)) return { content: "Everything looks healthy; nothing to fix." }
    return { content: evalCase.expectedOutput.map((e) => `- ${e}`).join("\n") }
  }
}

function judgeStep(messages: { role: string; content: unknown }[]): FakeStep {
  const prompt = String(messages.at(-1)?.content ?? "")
  const expected = [
    ...(prompt.split("Expected elements:\n")[1] ?? "").split("\n\nAnswer")[0]!.matchAll(/^\d+\. (.*)$/gm),
  ].map((m) => m[1] ?? "")
  const answer = prompt.split("<<<ANSWER\n")[1] ?? ""
  const found = expected.map((e) => answer.includes(e))
  const reasoning = found.map((ok, n) => `${n + 1}. ${ok ? "present" : "missing"}`).join(" ")
  return {
    content: JSON.stringify({ reasoning, pass: found.length > 0 && found.every(Boolean) }),
    usage: { prompt_tokens: 400, completion_tokens: 60 },
  }
}

/** The arguments of the call a mock recorded (line 2's `params`), else the ones it matches on. */
function recordedCall(mock: Mock): Record<string, unknown> {
  const result = JSON.parse(readFileSync(mock.file, "utf8").split("\n")[1] ?? "{}")
  const params = result.params
  return params && typeof params === "object" && Object.keys(params).length
    ? params
    : (mock.matchParams ?? {})
}
