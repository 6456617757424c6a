import { describe, expect, test } from "bun:test"
import { ModelError } from "../../src/errors.ts"
import { judgeAnswer } from "../../src/eval/judge.ts"
import type { ChatModel, CompletionRequest } from "../../src/llm/types.ts"
import { localModel } from "./support.ts"

/** A judge that answers `content` and keeps the request it got. */
function judgeModel(content: string): ChatModel & { seen: CompletionRequest[] } {
  const seen: CompletionRequest[] = []
  return {
    ...localModel(
      "judge",
      () => content,
      (request) => void seen.push(request),
    ),
    seen,
  }
}

const INPUT = {
  question: "Why?",
  expected: ["the disk is full", "postgres cannot write"],
  answer: "The disk is full.",
}

describe("the judge", () => {
  test("asks for reasoning element by element, then the verdict", async () => {
    const model = judgeModel('{"reasoning": "1. present 2. missing", "pass": false}')
    const verdict = await judgeAnswer(model, INPUT)
    expect(verdict).toMatchObject({ pass: false, reasoning: "1. present 2. missing" })
    const [request] = model.seen
    expect(request?.responseFormat?.json_schema.strict).toBe(true)
    expect(String(request?.messages[0]?.content)).toContain("only if every expected element is present")
    expect(String(request?.messages[1]?.content)).toContain("1. the disk is full\n2. postgres cannot write")
  })

  test("takes the verdict from a markdown fence, from providers that ignore response_format", async () => {
    const verdict = await judgeAnswer(
      judgeModel('```json\n{"reasoning": "all there", "pass": true}\n```'),
      INPUT,
    )
    expect(verdict.pass).toBe(true)
  })

  test("a reply without the verdict fields is a ModelError", async () => {
    await expect(judgeAnswer(judgeModel('{"verdict": "pass"}'), INPUT)).rejects.toBeInstanceOf(ModelError)
  })
})
