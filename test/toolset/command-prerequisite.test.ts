import { describe, expect, test } from "bun:test"
import type { PrerequisiteContext } from "../../src/tool/prerequisite.ts"
import { buildToolEnv } from "../../src/tool/tool-env.ts"
import { CommandPrerequisite } from "../../src/toolset/command-prerequisite.ts"

const context: PrerequisiteContext = {
  config: {},
  env: buildToolEnv(process.env),
  signal: new AbortController().signal,
  timeoutSeconds: 5,
}

describe("CommandPrerequisite", () => {
  test("passes when the command exits 0", async () => {
    expect(await new CommandPrerequisite("uname -s").check(context)).toEqual([true, ""])
  })

  test("names a program missing from PATH", async () => {
    expect(await new CommandPrerequisite("kubectl-nope version --client").check(context)).toEqual([
      false,
      "kubectl-nope not found on PATH",
    ])
  })

  test("reports the exit code and first line of output", async () => {
    const [ok, message] = await new CommandPrerequisite(
      "echo 'cluster unreachable'; echo more; exit 1",
    ).check(context)
    expect(ok).toBe(false)
    expect(message).toBe("`echo 'cluster unreachable'; echo more; exit 1` exited 1: cluster unreachable")
  })

  test("checks expected_output", async () => {
    expect((await new CommandPrerequisite("uname -s", "Linux").check(context))[0]).toBe(true)
    const [ok, message] = await new CommandPrerequisite("uname -s", "Darwin").check(context)
    expect(ok).toBe(false)
    expect(message).toContain('did not print "Darwin"')
  })

  test("times out", async () => {
    const [ok, message] = await new CommandPrerequisite("sleep 100").check({
      ...context,
      timeoutSeconds: 0.3,
    })
    expect(ok).toBe(false)
    expect(message).toContain("timed out")
  })
})
