import { afterAll, describe, expect, test } from "bun:test"
import { parseCommand } from "../../../src/toolset/bash/parse.ts"
import { classifyPipeline } from "../../../src/toolset/bash/policy.ts"

/**
 * Finding R16: gawk opens `/inet/tcp/…` operands as network connections (also with `--sandbox`),
 * so an allowlisted `awk '{print}' /inet/tcp/0/HOST/PORT` reached any host past the egress guard.
 * The real gawk proves the form connects; the policy must not run it without approval.
 */
function decide(command: string): string {
  const parsed = parseCommand(command)
  if (!parsed.ok) throw new Error(parsed.reason)
  return classifyPipeline(parsed.stages, { cwd: "/tmp" }).decision
}

let connections = 0
const server = Bun.listen({
  hostname: "127.0.0.1",
  port: 0,
  socket: {
    open(socket) {
      connections++
      socket.end("banner\n")
    },
    data() {},
  },
})
afterAll(() => server.stop(true))
const target = `0/127.0.0.1/${server.port}`

describe.if(Bun.which("gawk") !== null)("gawk special files", () => {
  test("a /inet operand connects for real, and needs approval", async () => {
    const run = Bun.spawn(["gawk", "--sandbox", "{print}", `/inet/tcp/${target}`], { stdout: "pipe" })
    expect(await new Response(run.stdout).text()).toContain("banner")
    expect(connections).toBeGreaterThan(0)
    for (const line of [
      `awk '{print}' /inet/tcp/${target}`,
      `gawk --sandbox '{print}' /inet4/tcp/${target}`,
      `awk '{print}' /etc/hostname /inet6/udp/${target}`,
      "awk '{print}' /inet/tcp/18446/0/0",
      "mawk '{print}' /dev/fd/3",
      "gawk '{print}' /dev/stdin",
      "awk -F: '{print}' /dev/stderr",
    ])
      expect({ line, decision: decide(line) }).not.toEqual({ line, decision: "allow" })
  })

  test("plain files still run without approval", () => {
    for (const line of [
      "awk '{print $1}' /etc/hostname",
      "gawk -F: '{print $1}' /etc/passwd",
      "awk '{print}' inet.txt",
    ])
      expect({ line, decision: decide(line) }).toEqual({ line, decision: "allow" })
  })
})
