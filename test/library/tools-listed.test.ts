/**
 * `toolExecutor.toolsByName` lists the tools of every enabled toolset from the moment the LLM
 * object exists (it used to be empty until the prerequisites ran); a toolset that fails its
 * prerequisites drops out. The model is offered only the tools of toolsets that passed.
 */
import { afterAll, beforeAll, expect, test } from "bun:test"
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { type FakeProvider, startFakeProvider } from "../support/fake-provider.ts"

const repo = resolve(import.meta.dir, "../..")
let fake: FakeProvider
let project: string

beforeAll(async () => {
  fake = await startFakeProvider()
  project = mkdtempSync(join(tmpdir(), "dupin-user-"))
  mkdirSync(join(project, "node_modules"))
  symlinkSync(repo, join(project, "node_modules", "dupin"))
  symlinkSync(join(repo, "node_modules", "@sinclair"), join(project, "node_modules", "@sinclair"))
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "user", type: "module" }))
  writeFileSync(
    join(project, "team.yaml"),
    `toolsets:
  team/ready:
    description: Passes its check
    prerequisites:
      - command: "true"
    tools:
      - name: ready_tool
        description: Always there
        command: "echo ready"
  team/broken:
    description: Fails its check
    prerequisites:
      - command: "exit 3"
    tools:
      - name: broken_tool
        description: Needs something missing
        command: "echo broken"
  team/off:
    description: Switched off
    enabled: false
    tools:
      - name: off_tool
        description: Never listed
        command: "echo off"
`,
  )
})

afterAll(async () => {
  await fake.stop()
  rmSync(project, { recursive: true, force: true })
})

test("toolsByName lists an enabled toolset's tools before its prerequisites run, and drops a toolset that fails them", async () => {
  fake.script({ content: "All fine." })
  const proc = Bun.spawn(["bun", "run", join(import.meta.dir, "tools-listed-script.ts")], {
    cwd: project,
    env: { ...process.env, FAKE_URL: fake.url, YAML_TOOLSET: join(project, "team.yaml") },
    stdout: "pipe",
    stderr: "pipe",
  })
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ])
  expect(err.includes("error:") ? err : "").toBe("")
  expect(code).toBe(0)
  const report = JSON.parse(out.trim().split("\n").at(-1)!) as {
    before: string[]
    after: string[]
    status: Record<string, string>
    answer: string
  }
  expect(report.answer).toBe("All fine.")

  // Right after createConsoleToolCallingLLM(): every enabled toolset's tools, checked or not.
  expect(report.before).toContain("ready_tool")
  expect(report.before).toContain("broken_tool")
  expect(report.before).toContain("TodoWrite")
  expect(report.before).not.toContain("off_tool")

  // After the prerequisites ran: the failed toolset's tools are gone.
  expect(report.status["team/broken"]).toBe("failed")
  expect(report.status["team/ready"]).toBe("enabled")
  expect(report.after).toContain("ready_tool")
  expect(report.after).not.toContain("broken_tool")
  expect(report.after).not.toContain("off_tool")

  // The model was only ever offered the tools of toolsets that passed.
  const tools = (fake.requests[0]?.body?.tools ?? []) as Array<{ function: { name: string } }>
  const offered = tools.map((t) => t.function.name)
  expect(offered).toContain("ready_tool")
  expect(offered).not.toContain("broken_tool")
  expect(offered).not.toContain("off_tool")
  // And once every toolset is checked, the listed tools are the offered ones.
  expect(offered.sort()).toEqual(report.after.sort())
})
