// One line counter (issue 12 item 15): the paging note of a cut tool result and read_tool_output
// used to count a trailing newline differently, so the model was told two totals for one output.
import { describe, expect, test } from "bun:test"
import { countLines, readLines } from "../../src/context/output-pager.ts"
import { cutToolMessage, pagingNote } from "../../src/context/tool-result.ts"
import { TokenCounter } from "../../src/llm/tokens.ts"

const counter = await TokenCounter.forModel("openai/gpt-4o")

describe("counting lines", () => {
  test("a trailing newline ends the last line; it does not start another", async () => {
    expect(countLines("")).toBe(0)
    expect(countLines("a")).toBe(1)
    expect(countLines("a\n")).toBe(1)
    expect(countLines("\n")).toBe(1)
    expect(countLines("a\nb")).toBe(2)
    expect(countLines("a\nb\n")).toBe(2)
    expect(countLines("a\n\n")).toBe(2)
  })

  test("a cut output's note and read_tool_output give the same total, with a trailing newline", async () => {
    const full = `${Array.from({ length: 500 }, (_, i) => `row ${i + 1} value ${i * 7}`).join("\n")}\n`
    const { message } = await cutToolMessage(
      { role: "tool", tool_call_id: "call_1", content: full },
      "kubectl_logs",
      300,
      counter,
    )
    const note = /\[Output cut in line (\d+) of (\d+)\./.exec(String(message.content))
    expect(note).not.toBeNull()
    expect(Number(note?.[2])).toBe(500)
    expect(readLines(full, 1, 1, 1000).total).toBe(500)
    // Reading on starts in the line the cut stopped in.
    const kept = String(message.content).slice(0, String(message.content).indexOf("\n[Output cut"))
    const start = Number(note?.[1])
    expect(full.split("\n")[start - 1]?.startsWith(kept.split("\n").at(-1) ?? "")).toBe(true)
  })

  test("a kept text ending at a line boundary reads on from the next line", async () => {
    const note = pagingNote("call_1", 3)
    expect(note("a\nb\n")).toContain("cut in line 3 of 3.")
    expect(note("a\nb")).toContain("cut in line 2 of 3.")
    expect(note("")).toContain("cut in line 1 of 3.")
  })
})
