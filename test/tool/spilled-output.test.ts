/**
 * A long tool output bound for the model (`spill`) is decoded, redacted and written to a file off
 * the event loop; the run's `output` is its first 256 KB, and the model pages the whole from the
 * file with line numbers that agree with the cut message (finding R11).
 */
import { expect, test } from "bun:test"
import { OutputStore } from "../../src/context/output-store.ts"
import { cutToolMessage } from "../../src/context/tool-result.ts"
import { TokenCounter } from "../../src/llm/tokens.ts"
import { runProcess } from "../../src/tool/spawn.ts"

const base = { env: { PATH: "/usr/bin:/bin" }, timeoutMs: 10_000, maxOutputBytes: 10_000_000 }

test("a long output keeps its start as text and the whole, redacted, in a file the store pages and removes", async () => {
  const script = "echo 'token: ghp_0123456789abcdefghijklmnopqrstuvwxyzAB'; seq 1 200000"
  const run = await runProcess({ ...base, argv: ["bash", "-c", script], spill: true })
  const spill = run.spill
  if (!spill) throw new Error("expected a spilled output")
  const whole = await spill.text()
  expect(whole).not.toContain("ghp_0123456789")
  expect(whole.endsWith("199999\n200000\n")).toBe(true)
  expect(spill.lines).toBe(200_001)
  expect(run.output.length).toBe(256 * 1024)
  expect(whole.startsWith(run.output)).toBe(true)

  const store = new OutputStore()
  const head = "status: success\n<<<tool_output>>>\n"
  const counter = await TokenCounter.forModel("openai/gpt-4o")
  const content = `${head}${run.output}\n<<<end_output>>>`
  const message = { role: "tool" as const, tool_call_id: "c1", name: "t", content }
  const cut = await cutToolMessage(message, "t", 2_000, counter, undefined, spill)
  // The cut hands the head and the file back; the run's store (RunTools) takes them over.
  if (!cut.spilled) throw new Error("expected the spilled output back")
  expect(cut.spilled.output).toBe(spill)
  store.putSpilled("c1", "t", cut.spilled.head, cut.spilled.output)
  // The note counts the message's two head lines and every line of the whole output.
  expect(cut.message.content).toMatch(/\[Output cut in line \d+ of 200003\./)
  expect(await store.get("c1")).toBe(`${head}${whole}`)
  await store.dispose()
  expect(await Bun.file(spill.file).exists()).toBe(false)
})

test("a short output, or one not bound for the model, is not spilled", async () => {
  const short = await runProcess({ ...base, argv: ["bash", "-c", "seq 1 1000"], spill: true })
  expect(short.spill).toBeUndefined()
  const whole = await runProcess({ ...base, argv: ["bash", "-c", "seq 1 200000"] })
  expect(whole.spill).toBeUndefined()
  expect(whole.output.endsWith("200000\n")).toBe(true)
})
