import { afterEach, expect, test } from "bun:test"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { ChatMessage, ToolMessage } from "../../src/llm/types.ts"
import { type Harness, providerMessages, startHarness } from "./harness.ts"

let h: Harness | undefined
afterEach(async () => {
  await h?.stop()
  h = undefined
})

const OUTPUT = 20_000
const CALLS = 5

/** A harness whose `loud` tool logs its start and end, naps, then prints OUTPUT bytes. */
async function loudHarness(limits: Record<string, number>): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), "dupin-fan-out-"))
  const file = join(dir, "loud.yaml")
  writeFileSync(
    file,
    `toolsets:
  loud/tools:
    description: loud
    tools:
      - name: loud
        description: prints a lot
        command: "echo start >> ${dir}/log; sleep 0.2; echo end >> ${dir}/log; head -c ${OUTPUT} /dev/zero | tr '\\\\0' a; echo {{ n }}"
        parameters:
          n: { type: string }
`,
  )
  logDir = dir
  return startHarness({ init: { customToolsets: [file], limits } })
}
let logDir = ""

function maxOverlap(log: string): number {
  let running = 0
  let max = 0
  for (const line of log.split("\n")) {
    if (line === "start") max = Math.max(max, ++running)
    if (line === "end") running--
  }
  return max
}

test("fan-out: parallel calls are capped, output kept per request is capped, echoes are cut", async () => {
  h = await loudHarness({
    max_parallel_tool_calls: 2,
    request_tool_output_max_bytes: 50_000,
    tool_result_echo_max_bytes: 4096,
  })
  const calls = Array.from({ length: CALLS }, (_, i) => ({
    id: `c${i}`,
    name: "loud",
    arguments: { n: `${i}` },
  }))
  h.fake.script({ toolCalls: calls }, { content: "done" })
  const res = await h.post({ ask: "go" })
  expect(res.status).toBe(200)
  const body = (await res.json()) as {
    tool_calls: Array<{ tool_call_id: string; result: { status: string; data: string } }>
    conversation_history: ChatMessage[]
  }
  const log = readFileSync(join(logDir, "log"), "utf8")
  expect(log.match(/start/g)?.length).toBe(CALLS)
  expect(maxOverlap(log)).toBe(2)

  // Echoes: the first 4096 bytes and the full size, never the whole output.
  expect(body.tool_calls).toHaveLength(CALLS)
  for (const call of body.tool_calls) {
    expect(call.result.status).toBe("success")
    expect(call.result.data.length).toBeLessThan(4096 + 300)
  }
  const echoed = body.tool_calls.filter((c) =>
    c.result.data.includes("[dupin: output shown up to 4096 of 20002 bytes]"),
  )
  expect(echoed.length).toBeGreaterThanOrEqual(2)

  // The model: results in its order; the first two whole, then cut at the request budget, with a note.
  const tools = providerMessages(h.fake, 1).filter((m) => m.role === "tool") as ToolMessage[]
  expect(tools.map((m) => m.tool_call_id)).toEqual(calls.map((c) => c.id))
  const lengths = tools.map((m) => String(m.content).match(/a{50,}/)?.[0].length ?? 0)
  expect(lengths[0]).toBe(OUTPUT)
  expect(lengths.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(50_000)
  const cut = tools.filter((m) => String(m.content).includes("tool output budget"))
  expect(cut.length).toBeGreaterThanOrEqual(CALLS - 2)
  for (const m of cut)
    expect(String(m.content)).toContain("limits.request_tool_output_max_bytes = 50000 bytes")
  // The first request of the file also builds the tokenizer: seconds on a busy 2-core runner.
}, 30_000)

test("fan-out: the stream's tool_calling_result events carry the cut echo too", async () => {
  h = await loudHarness({ tool_result_echo_max_bytes: 2048 })
  h.fake.script({ toolCalls: [{ id: "c1", name: "loud", arguments: { n: "1" } }] }, { content: "done" })
  const { frames } = await h.stream({ ask: "go" })
  const frame = frames.find((f) => f.event === "tool_calling_result")
  if (!frame) throw new Error("no tool_calling_result event")
  const data = (frame.data as { result: { data: string } }).result.data
  expect(data).toContain(`[dupin: output shown up to 2048 of ${OUTPUT + 2} bytes]`)
  expect(frame.raw.length).toBeLessThan(4096)
})
