import { afterAll, beforeAll, expect, test } from "bun:test"
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { type FakeProvider, startFakeProvider } from "../support/fake-provider.ts"

const repo = resolve(import.meta.dir, "../..")
let fake: FakeProvider
let project: string

beforeAll(async () => {
  fake = await startFakeProvider()
  // A separate project that depends on dupin, as a user's would (node_modules/dupin → this repo).
  project = mkdtempSync(join(tmpdir(), "dupin-user-"))
  mkdirSync(join(project, "node_modules"))
  symlinkSync(repo, join(project, "node_modules", "dupin"))
  symlinkSync(join(repo, "node_modules", "@sinclair"), join(project, "node_modules", "@sinclair"))
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "user", type: "module" }))
  writeFileSync(
    join(project, "greeter.yaml"),
    [
      "toolsets:",
      "  team/greeter:",
      "    description: Says hello",
      "    tools:",
      "      - name: greet",
      "        description: Greet someone",
      "        command: \"printf 'hello %s\\n' {{ who }}\"",
    ].join("\n"),
  )
})

afterAll(async () => {
  await fake.stop()
})

test("the spec's library flow works from another project, with a YAML and a class toolset", async () => {
  fake.script(
    {
      content: "Looking up both.",
      toolCalls: [
        { id: "c1", name: "inventory_lookup", arguments: { host: "web-1" } },
        { id: "c2", name: "greet", arguments: { who: "world; touch /tmp/never" } },
      ],
      usage: { prompt_tokens: 50, completion_tokens: 10 },
    },
    {
      content: "web-1 is in eu-west; the greeter says hello.",
      usage: { prompt_tokens: 80, completion_tokens: 12 },
    },
    { content: "Nothing else.", usage: { prompt_tokens: 90, completion_tokens: 3 } },
  )
  const proc = Bun.spawn(["bun", "run", join(import.meta.dir, "user-script.ts")], {
    cwd: project,
    env: { ...process.env, FAKE_URL: fake.url, YAML_TOOLSET: join(project, "greeter.yaml") },
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
  const report = JSON.parse(out.trim().split("\n").at(-1)!)

  expect(report.tools).toContain("inventory_lookup")
  expect(report.tools).toContain("greet")
  expect(report.tools).toContain("TodoWrite")
  expect(report.toolsets.find((t: { name: string }) => t.name === "inventory").status).toBe("enabled")
  expect(report.first.result).toBe("web-1 is in eu-west; the greeter says hello.")
  expect(report.first.numLlmCalls).toBe(2)
  expect(report.first.totalTokens).toBe(152)
  const calls = Object.fromEntries(report.first.toolCalls.map((c: { name: string }) => [c.name, c]))
  expect(calls.inventory_lookup.data).toBe("web-1 is in eu-west")
  expect(calls.inventory_lookup.description).toBe("inventory web-1")
  // The YAML parameter is data: the whole value is printed, nothing after ';' runs.
  expect(calls.greet.data).toBe("hello world; touch /tmp/never\n")
  expect(report.second.result).toBe("Nothing else.")

  // The follow-up sent the whole first conversation plus the new question.
  const third = fake.requests[2]!.body!.messages as Array<{ role: string; content: string }>
  expect(third[0]!.role).toBe("system")
  expect(third[0]!.content).toContain("Answer in one line.")
  expect(third.at(-1)).toEqual({ role: "user", content: "Thanks. Anything else?" })
  expect(third.filter((m) => m.role === "tool")).toHaveLength(2)
  expect(report.second.messages).toBe(third.length + 1)
})
