import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { type FakeProvider, startFakeProvider } from "../support/fake-provider.ts"
import { cliEnv, messagesOf, runCli, SUBPROCESS_TIMEOUT_MS, tempFile } from "./support.ts"

let fake: FakeProvider
beforeEach(async () => {
  fake = await startFakeProvider()
})
afterEach(async () => {
  await fake.stop()
})

/** The user message of the first provider request (the question with its attachments). */
function firstQuestion(): string {
  const user = messagesOf(fake.requests[0]?.body ?? null).find((m) => m.role === "user")
  return typeof user?.content === "string" ? user.content : ""
}

describe("dupin ask", () => {
  test(
    "prints the answer on stdout and each tool call's start and end on stderr",
    async () => {
      fake.script(
        {
          toolCalls: [
            { name: "TodoWrite", arguments: { todos: [{ id: "1", content: "look", status: "completed" }] } },
          ],
        },
        { content: "## Cause\nThe disk is full." },
      )
      const result = await runCli(["ask", "why", "is", "nginx", "down?"], { env: cliEnv(fake) })
      expect(result.code).toBe(0)
      expect(result.stdout).toBe("## Cause\nThe disk is full.\n")
      // The plan is a checklist, not its JSON.
      expect(result.stderr).toMatch(/^▸ TodoWrite\(1 item\)\n✓ TodoWrite\(1 item\) \d+\.\ds\n {2}☑ look\n$/)
      expect(firstQuestion()).toEndWith("why is nginx down?")
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "--json prints the non-stream API response body",
    async () => {
      fake.script(
        { toolCalls: [{ id: "call_a", name: "TodoWrite", arguments: { todos: [] } }] },
        { content: "All good." },
      )
      const result = await runCli(["ask", "status?", "--json"], { env: cliEnv(fake) })
      expect(result.code).toBe(0)
      const body = JSON.parse(result.stdout)
      expect(Object.keys(body).sort()).toEqual([
        "analysis",
        "conversation_history",
        "follow_up_actions",
        "metadata",
        "tool_calls",
      ])
      expect(body.analysis).toBe("All good.")
      expect(body.tool_calls).toEqual([
        {
          tool_call_id: "call_a",
          tool_name: "TodoWrite",
          description: "TodoWrite(0 items)",
          result: {
            status: "success",
            data: expect.stringContaining("Plan updated"),
            error: null,
            params: { todos: [] },
          },
        },
      ])
      expect(body.conversation_history.map((m: { role: string }) => m.role)).toEqual([
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
      ])
      expect(body.follow_up_actions.map((a: { id: string }) => a.id)).toEqual(["logs", "fix", "prevent"])
      expect(body.metadata.costs).toMatchObject({
        num_llm_calls: 2,
        prompt_tokens: 20,
        completion_tokens: 10,
      })
      expect(body.metadata.tokens.total_tokens).toBeGreaterThan(0)
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "piped stdin and -f files are attached as context",
    async () => {
      fake.script({ content: "Seen." })
      const log = tempFile("app.log", "ERROR connection refused to db:5432\n")
      const result = await runCli(["ask", "what failed?", "-f", log], {
        env: cliEnv(fake),
        stdin: "kubectl output: CrashLoopBackOff\n",
      })
      expect(result.code).toBe(0)
      const question = firstQuestion()
      expect(question).toContain('<attached_file name="stdin">\nkubectl output: CrashLoopBackOff')
      expect(question).toContain('<attached_file name="app.log">\nERROR connection refused to db:5432')
      expect(question).toEndWith("what failed?")
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "--max-steps bounds the model calls and the last one may not call tools",
    async () => {
      fake.script(
        { toolCalls: [{ name: "TodoWrite", arguments: { todos: [] } }] },
        { content: "Stopped early." },
      )
      const result = await runCli(["ask", "q", "--max-steps", "2", "--json"], { env: cliEnv(fake) })
      expect(result.code).toBe(0)
      expect(JSON.parse(result.stdout).metadata.costs.num_llm_calls).toBe(2)
      expect(fake.requests[1]?.body?.tool_choice).toBe("none")
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "--model wins over MODEL",
    async () => {
      fake.script({ content: "ok" })
      const result = await runCli(["ask", "q", "--model", "openai/gpt-4o-mini"], { env: cliEnv(fake) })
      expect(result.code).toBe(0)
      expect(fake.requests[0]?.body?.model).toBe("gpt-4o-mini")
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "logs default to WARN for ask, so INFO lines do not mix with progress",
    async () => {
      fake.script({ content: "ok" })
      const quiet = await runCli(["ask", "q"], { env: cliEnv(fake) })
      expect(quiet.stderr).toBe("")
      fake.script({ content: "ok" })
      const debug = await runCli(["ask", "q"], { env: cliEnv(fake, { SVC_LOG_LEVEL: "DEBUG" }) })
      expect(debug.stderr).toContain('"level":"DEBUG"')
    },
    SUBPROCESS_TIMEOUT_MS,
  )
})
