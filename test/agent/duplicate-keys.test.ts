import { afterEach, beforeEach, expect, test } from "bun:test"
import type { ChatMessage, ToolMessage } from "../../src/llm/types.ts"
import { duplicateKey } from "../../src/tool/duplicate-keys.ts"
import { engine } from "../support/engine.ts"
import { type FakeProvider, startFakeProvider } from "../support/fake-provider.ts"
import { EchoTool, GuardedTool, toolset } from "../support/tools.ts"

let fake: FakeProvider
beforeEach(async () => {
  fake = await startFakeProvider()
})
afterEach(async () => {
  await fake.stop()
})

const ask: ChatMessage[] = [
  { role: "system", content: "test" },
  { role: "user", content: "q" },
]

test("a call whose arguments repeat a key is refused to the model and nothing runs, even when approved", async () => {
  const guarded = new GuardedTool()
  const echo = new EchoTool()
  fake.script(
    {
      toolCalls: [
        { id: "a", name: "restart_service", arguments: '{"service":"web","service":"db"}' },
        { id: "b", name: "echo", arguments: '{"text":"ls","\\u0074ext":"rm -rf /"}' },
        { id: "c", name: "restart_service", arguments: '{"service":"cache"}' },
      ],
    },
    { content: "done" },
  )
  const llm = engine(fake, { toolsets: [toolset("t", [guarded, echo])] })
  const asked: string[] = []
  const result = await llm.call(ask, {
    approvalCallback: (p) => {
      asked.push(p.tool_call_id)
      return true
    },
  })
  // Only the well-formed call was offered for approval and ran.
  expect(asked).toEqual(["c"])
  expect(guarded.ran).toEqual(["cache"])
  expect(echo.calls).toEqual([])
  const byId = new Map(
    (result.messages ?? [])
      .filter((m): m is ToolMessage => m.role === "tool")
      .map((m) => [m.tool_call_id, m.content]),
  )
  expect(byId.get("a")).toStartWith("status: error")
  expect(byId.get("a")).toContain('name the key "service" more than once')
  expect(byId.get("b")).toContain('name the key "text" more than once')
  expect(byId.get("c")).toContain("restarted cache")
})

test("duplicateKey: per object, keys decoded, strings and arrays skipped, linear on hostile input", () => {
  expect(duplicateKey('{"a":1,"b":2}')).toBeUndefined()
  expect(duplicateKey('{"a":1,"a":2}')).toBe("a")
  expect(duplicateKey('{"a":{"x":1},"b":{"x":2}}')).toBeUndefined()
  expect(duplicateKey('{"a":{"x":1,"y":[{"z":1,"z":2}]}}')).toBe("z")
  expect(duplicateKey('{"a":"\\",\\"a\\":","b":["a","a"]}')).toBeUndefined()
  expect(duplicateKey('{"\\u0061":1,"a":2}')).toBe("a")
  expect(duplicateKey('[{"k":1},{"k":2}]')).toBeUndefined()
  expect(duplicateKey('{"k":[1,2],"j":{},"k":0}')).toBe("k")
  const keys = Array.from({ length: 200_000 }, (_, i) => `"k${i}":${i}`).join(",")
  const started = performance.now()
  expect(duplicateKey(`{${keys},"k199999":0}`)).toBe("k199999")
  expect(duplicateKey(`${"[".repeat(100_000)}${"]".repeat(100_000)}`)).toBeUndefined()
  expect(performance.now() - started).toBeLessThan(1000)
})
