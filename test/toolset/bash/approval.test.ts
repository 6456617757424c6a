import { afterAll, describe, expect, test } from "bun:test"
import { rmSync } from "node:fs"
import { ToolResultStatus } from "../../../src/tool/result.ts"
import { createBashToolset } from "../../../src/toolset/bash/index.ts"
import { Sandbox } from "./harness.ts"

const sandbox = new Sandbox()
afterAll(() => rmSync(sandbox.dir, { recursive: true, force: true }))

describe("approval", () => {
  test("an approve-class command asks first, and runs once approved", async () => {
    const { marker } = sandbox.fresh()
    const tool = sandbox.tool()
    expect(tool.requiresApproval({ command: `touch ${marker}` })).toContain(
      "touch is not on the read-only allowlist",
    )
    const pending = await sandbox.run(`touch ${marker}`)
    expect(pending.status).toBe(ToolResultStatus.APPROVAL_REQUIRED)
    expect(sandbox.markerExists(marker)).toBe(false)
    const approved = await sandbox.run(`touch ${marker}`, { approved: true })
    expect(approved.status).not.toBe(ToolResultStatus.ERROR)
    expect(sandbox.markerExists(marker)).toBe(true)
  })

  test("an approved kubectl mutation runs exactly the argv that was shown", async () => {
    sandbox.clearShimLog()
    const result = await sandbox.run("kubectl delete pod 'my pod' -n default", { approved: true })
    expect(result.status).toBe(ToolResultStatus.SUCCESS)
    expect(sandbox.shimCalls()).toEqual(["kubectl delete pod my pod -n default"])
  })

  for (const template of [
    "kubectl exec some-pod -- touch {{M}}",
    "rm -rf {{VICTIM}}",
    "find {{VICTIM}} -exec touch {{M}} \\;",
    "sudo rm -r {{VICTIM}}",
    "bash -c 'rm -rf {{VICTIM}}'",
    "env",
    "kubectl get secrets -o yaml",
    "kubectl delete namespace default",
    "tee /etc/dupin-test-{{N}}",
    "head /etc/shadow",
  ]) {
    test(`deny holds even when approved: ${template}`, async () => {
      const { marker, victim } = sandbox.fresh()
      const command = template
        .replaceAll("{{M}}", marker)
        .replaceAll("{{VICTIM}}", victim)
        .replaceAll("{{N}}", String(process.pid))
      expect(sandbox.tool().requiresApproval({ command })).toBe(false)
      sandbox.clearShimLog()
      const result = await sandbox.run(command, { approved: true })
      expect(result.status).toBe(ToolResultStatus.ERROR)
      expect(result.error).toContain("not run, even with approval")
      expect(sandbox.markerExists(marker)).toBe(false)
      expect(sandbox.victimIntact(victim)).toBe(true)
      expect(sandbox.shimCalls()).toEqual([])
    })
  }

  test("a command the parser refuses never runs, approved or not, and says why", async () => {
    const { marker } = sandbox.fresh()
    const result = await sandbox.run(`kubectl get pods; touch ${marker}`, { approved: true })
    expect(result.status).toBe(ToolResultStatus.ERROR)
    expect(result.error).toContain("Only one pipeline is allowed")
    expect(sandbox.markerExists(marker)).toBe(false)
  })

  test("read-only commands need no approval", () => {
    expect(sandbox.tool().requiresApproval({ command: "kubectl get pods -A | grep -v Running" })).toBe(false)
  })
})

describe("config allow and deny lists", () => {
  test("allow lifts approve to allow for the prefix only", async () => {
    const tool = sandbox.tool({ allow: ["kubectl rollout status"] })
    expect(tool.requiresApproval({ command: "kubectl rollout status deploy/x" })).toBe(false)
    expect(tool.requiresApproval({ command: "kubectl rollout restart deploy/x" })).toContain("Needs approval")
    sandbox.clearShimLog()
    const result = await sandbox.run("kubectl rollout status deploy/x", { tool })
    expect(result.status).toBe(ToolResultStatus.SUCCESS)
    expect(sandbox.shimCalls()).toEqual(["kubectl rollout status deploy/x"])
  })

  test("deny wins over allow and over the built-in allowlist", async () => {
    const tool = sandbox.tool({ allow: ["kubectl get"], deny: ["kubectl get pods"] })
    sandbox.clearShimLog()
    const result = await sandbox.run("kubectl get pods", { tool, approved: true })
    expect(result.status).toBe(ToolResultStatus.ERROR)
    expect(result.error).toContain("deny list")
    expect(sandbox.shimCalls()).toEqual([])
  })

  test("config allow cannot lift a hard deny", async () => {
    const tool = sandbox.tool({ allow: ["rm", "env", "kubectl exec", "kubectl get secrets"] })
    for (const command of [
      "rm -rf /tmp/nothing-here",
      "env",
      "kubectl exec p -- id",
      "kubectl get secrets",
    ]) {
      expect((await sandbox.run(command, { tool, approved: true })).error).toContain(
        "not run, even with approval",
      )
    }
  })
})

describe("running", () => {
  test("the timeout parameter ends a long command", async () => {
    const tool = sandbox.tool()
    const validated = tool.validate({ command: "sleep 5", timeout: 1 })
    if (!validated.ok) throw new Error(validated.error)
    const started = performance.now()
    const result = await tool.run(validated.params, {
      signal: new AbortController().signal,
      toolCallId: "t",
      limits: { timeoutDefault: 60, timeoutMax: 600, outputMaxBytes: 1000 },
      env: sandbox.env(),
      approved: true,
    })
    expect(result.status).toBe(ToolResultStatus.ERROR)
    expect(result.error).toContain("timed out")
    expect(performance.now() - started).toBeLessThan(4000)
  })

  test("a failing command is an error result with its exit code", async () => {
    const result = await sandbox.run("ls /definitely-not-here")
    expect(result.status).toBe(ToolResultStatus.ERROR)
    expect(result.returnCode).not.toBe(0)
  })

  test("the toolset is named bash, holds run_bash_command and is off by default", () => {
    const toolset = createBashToolset({ allow: ["kubectl rollout status"] })
    expect(toolset.name).toBe("bash")
    expect(toolset.enabled).toBe(false)
    expect(toolset.tools.map((t) => t.name)).toEqual(["run_bash_command"])
    expect(toolset.config).toEqual({ allow: ["kubectl rollout status"] })
    expect(createBashToolset({ enabled: true }).enabled).toBe(true)
  })
})
