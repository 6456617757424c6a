import { expect, test } from "bun:test"
import type { ToolCall } from "../../src/llm/types.ts"
import { uniqueCallIds } from "../../src/llm/unique-call-ids.ts"

const call = (id: string, name = "t"): ToolCall => ({
  id,
  type: "function",
  function: { name, arguments: "{}" },
})

test("repeated ids in one reply are renamed without colliding with the reply's other ids", () => {
  const ids = uniqueCallIds([call("a"), call("a"), call("a_2"), call("a"), call("b")]).map((c) => c.id)
  expect(ids).toEqual(["a", "a_3", "a_2", "a_4", "b"])
})

test("a reply with distinct ids is returned as is", () => {
  const calls = [call("a"), call("b")]
  expect(uniqueCallIds(calls)).toBe(calls)
})
