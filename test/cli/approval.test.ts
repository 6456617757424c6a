import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { NO_TTY_FEEDBACK } from "../../src/cli/ask/approval.ts"
import { type FakeProvider, startFakeProvider } from "../support/fake-provider.ts"
import { approvalToolsetFile, cliEnv, messagesOf, runCli, SUBPROCESS_TIMEOUT_MS } from "./support.ts"

let fake: FakeProvider
beforeEach(async () => {
  fake = await startFakeProvider()
})
afterEach(async () => {
  await fake.stop()
})

/** The tool message the model received in its second request. */
function toolResultSeenByModel(): string {
  const tool = messagesOf(fake.requests[1]?.body ?? null).find((m) => m.role === "tool")
  return typeof tool?.content === "string" ? tool.content : ""
}

describe("tools that need approval, without a terminal", () => {
  test(
    "--yes approves: the tool runs",
    async () => {
      fake.script(
        { toolCalls: [{ name: "restart_service", arguments: { service: "nginx" } }] },
        { content: "Restarted." },
      )
      const result = await runCli(
        ["ask", "restart nginx", "--toolset-file", approvalToolsetFile(), "--yes", "--json"],
        {
          env: cliEnv(fake),
        },
      )
      expect(result.code).toBe(0)
      const body = JSON.parse(result.stdout)
      expect(body.tool_calls[0].result).toMatchObject({ status: "success", data: "restarted nginx\n" })
      expect(toolResultSeenByModel()).toContain("restarted nginx")
      expect(result.stderr).toContain("▸ restart_service(service=nginx)")
      expect(result.stderr).toMatch(/✓ restart_service\(service=nginx\) \d/)
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "without --yes the call is denied and the model is told how to allow it",
    async () => {
      fake.script(
        { toolCalls: [{ name: "restart_service", arguments: { service: "nginx" } }] },
        { content: "I could not." },
      )
      const result = await runCli(
        ["ask", "restart nginx", "--toolset-file", approvalToolsetFile(), "--json"],
        {
          env: cliEnv(fake),
        },
      )
      expect(result.code).toBe(0)
      const body = JSON.parse(result.stdout)
      expect(body.tool_calls[0].result.status).toBe("error")
      expect(toolResultSeenByModel()).toContain(
        `Tool execution was denied by the user. User feedback: ${NO_TTY_FEEDBACK}`,
      )
      expect(toolResultSeenByModel()).not.toContain("restarted nginx")
      expect(result.stderr).toContain("✗ restart_service")
      expect(body.analysis).toBe("I could not.")
    },
    SUBPROCESS_TIMEOUT_MS,
  )
})
