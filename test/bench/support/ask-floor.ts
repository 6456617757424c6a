/**
 * The floor for `dupin ask` in first-conversation.ts: a script that makes the same conversation's
 * calls and nothing else. It replays the provider request bodies dupin sent (a JSON file of them)
 * with fetch, and runs each tool call the model asks for as `bash -c` (detached, piped, explicit
 * environment), like dupin's YAML tools. Started as a process, timed from spawn to exit.
 *
 *   bun test/bench/support/ask-floor.ts <provider base url> <bodies.json>
 */
import { readFileSync } from "node:fs"
import { runTinyTool } from "./tiny-tools.ts"

type ToolCall = { function: { name: string; arguments: string } }
const [providerUrl = "", bodiesPath = ""] = process.argv.slice(2)
const bodies = JSON.parse(readFileSync(bodiesPath, "utf8")) as unknown[]

let answer = ""
for (const body of bodies) {
  const response = await fetch(`${providerUrl}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer bench-key" },
    body: JSON.stringify({ ...(body as Record<string, unknown>), stream: false }),
  })
  const completion = (await response.json()) as {
    choices: Array<{ message: { content: string | null; tool_calls?: ToolCall[] } }>
  }
  const message = completion.choices[0]?.message
  await Promise.all(
    (message?.tool_calls ?? []).map((c) => runTinyTool(c.function.name, c.function.arguments)),
  )
  answer = message?.content ?? answer
}
process.stdout.write(`${answer}\n`)
