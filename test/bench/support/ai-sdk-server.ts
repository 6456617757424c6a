/**
 * The AI-SDK baseline for server-load.ts: what a competent user writes in an afternoon for the
 * same conversation (issue 19 item 5). Hono on Bun.serve, `streamText` from the AI SDK with the
 * OpenAI-compatible provider, the two tiny tools as `bash -c` processes (detached, piped, an
 * explicit environment: what dupin's floor does), SSE events for tool calls, results and the
 * answer. No auth, validation, approvals, redaction, containment or metrics: that is the point
 * of a baseline, so dupin's extra work shows in the ratio.
 *
 *   bun test/bench/support/ai-sdk-server.ts <provider base url>   → prints `READY <url>`
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { jsonSchema, stepCountIs, streamText, tool } from "ai"
import { Hono } from "hono"
import { streamSSE } from "hono/streaming"
import { runTinyTool } from "./tiny-tools.ts"

const providerUrl = process.argv[2] ?? ""
const model = createOpenAICompatible({ name: "bench", baseURL: providerUrl, apiKey: "bench-key" }).chatModel(
  "gpt-4o",
)

const tools = {
  t_true: tool({
    description: "Runs true",
    inputSchema: jsonSchema<{ n: string }>({
      type: "object",
      properties: { n: { type: "string" } },
      required: ["n"],
    }),
    execute: (input) => runTinyTool("t_true", JSON.stringify(input)),
  }),
  t_echo: tool({
    description: "Echoes its text",
    inputSchema: jsonSchema<{ text: string }>({
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
    }),
    execute: (input) => runTinyTool("t_echo", JSON.stringify(input)),
  }),
}

const app = new Hono()
app.get("/readyz", (c) => c.text("ok"))
app.post("/api/chat", async (c) => {
  const body = (await c.req.json()) as { ask?: unknown }
  if (typeof body.ask !== "string") return c.json({ detail: "ask is required" }, 422)
  const ask = body.ask
  return streamSSE(c, async (sse) => {
    const result = streamText({
      model,
      system: "You are a troubleshooting assistant for infrastructure.",
      prompt: ask,
      tools,
      stopWhen: stepCountIs(10),
      abortSignal: c.req.raw.signal,
    })
    let answer = ""
    for await (const part of result.fullStream) {
      if (part.type === "tool-call")
        await sse.writeSSE({
          event: "start_tool_calling",
          data: JSON.stringify({ id: part.toolCallId, tool_name: part.toolName }),
        })
      else if (part.type === "tool-result")
        await sse.writeSSE({
          event: "tool_calling_result",
          data: JSON.stringify({ tool_call_id: part.toolCallId, name: part.toolName, result: part.output }),
        })
      else if (part.type === "text-delta") answer += part.text
      else if (part.type === "error") throw part.error
    }
    const usage = await result.totalUsage
    await sse.writeSSE({ event: "ai_answer_end", data: JSON.stringify({ analysis: answer, usage }) })
  })
})

const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: app.fetch, idleTimeout: 120 })
process.stdout.write(`READY http://127.0.0.1:${server.port}\n`)
process.on("SIGTERM", () => {
  server.stop(true)
  process.exit(0)
})
