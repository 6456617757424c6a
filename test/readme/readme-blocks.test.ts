// A README example that does not run is a failing test (issue 12 item 3). Every fenced block of
// README.md is run the way a reader would use it (see run-blocks.ts), or carries
// `<!-- not-tested: reason -->` right before its fence. Directives a block may carry:
//   <!-- save-as: NAME -->        the block is also a file NAME beside the TypeScript examples
//   <!-- continues: previous -->  the TypeScript block runs after the one before it (same program)
//   <!-- expect-enabled: NAME --> after the block, `config`'s toolset NAME must be enabled
//   <!-- expect-failed: NAME -->  a YAML toolset block's toolset NAME is expected to fail
//   <!-- call-tool: NAME -->      after the block, the model calls tool NAME through `config`'s
//                                 engine, and the call must succeed
// Tests never reach the internet: the example status page (https://status.example.com) is a
// local stub server, and the model is the fake OpenAI-compatible provider.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parse as parseYaml } from "yaml"
import { type FakeProvider, startFakeProvider } from "../support/fake-provider.ts"
import { blockName, type ReadmeBlock, readmeBlocksOf } from "../support/readme-blocks.ts"
import {
  bashSyntax,
  childEnv,
  dupinCommands,
  MAIN,
  parseDupinArgv,
  REPO,
  run,
  runTypeScript,
  toolsetStatuses,
} from "./run-blocks.ts"

const blocks = readmeBlocksOf(join(REPO, "README.md"))
const TS = new Set(["ts", "typescript"])
const SHELL = new Set(["sh", "bash", "shell"])
const savedFiles = Object.fromEntries(
  blocks.filter((b) => b.directives["save-as"]).map((b) => [b.directives["save-as"] as string, b.code]),
)

let statusPage: ReturnType<typeof Bun.serve>
beforeAll(() => {
  statusPage = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => Response.json([]) })
})
afterAll(() => statusPage.stop(true))

/** The example's code with example hosts pointed at local stubs. */
function offline(code: string): string {
  return code.replaceAll("https://status.example.com", `http://127.0.0.1:${statusPage.port}`)
}

const TOOLSET_DUMP = `
// appended by test/readme: the toolsets the example's config loads, with their status
const __ai = config.createConsoleToolCallingLLM()
await __ai.toolExecutor.ensureReady()
console.log("README-TOOLSETS " + JSON.stringify(__ai.toolExecutor.toolsets.map((t) => ({ name: t.name, status: t.status, error: t.error }))))
`

/** Appended for `call-tool`: one question whose first model step calls the tool. */
const callTool = (name: string) => `
// appended by test/readme: the model calls ${name} once, through the example's config
const __run = await config.createConsoleToolCallingLLM().call([
  { role: "system", content: "You are a test." },
  { role: "user", content: "Use ${name}." },
])
console.log(__run.result)
console.log("README-CALLS " + JSON.stringify((__run.toolCalls ?? []).map((c) => ({ name: c.toolName, status: c.result.status, error: c.result.error }))))
`

async function withFake<T>(body: (fake: FakeProvider) => Promise<T>): Promise<T> {
  const fake = await startFakeProvider()
  try {
    return await body(fake)
  } finally {
    await fake.stop()
  }
}

describe("README examples", () => {
  test("every block is run here or says why not", () => {
    const untestable = blocks.filter((b) => {
      if (b.notTested !== undefined) return false
      if (TS.has(b.lang) || SHELL.has(b.lang) || b.lang === "yaml") return false
      return !(b.lang === "console" && b.code.split("\n").some((l) => l.startsWith("$ ")))
    })
    expect(untestable.map(blockName)).toEqual([])
    for (const b of blocks.filter((b) => b.notTested !== undefined))
      expect(b.notTested?.length).toBeGreaterThan(5)
  })

  blocks.forEach((block, index) => {
    if (block.notTested !== undefined) return
    if (TS.has(block.lang)) test(blockName(block), () => typeScriptBlock(block, index), 60_000)
    else if (block.lang === "yaml") test(blockName(block), () => yamlBlock(block), 60_000)
    else if (SHELL.has(block.lang) || block.lang === "console")
      test(blockName(block), () => shellBlock(block))
  })

  test("dupin version runs as the README shows", async () => {
    const result = await run([process.execPath, MAIN, "version"], REPO, childEnv())
    expect(result.stderr).toBe("")
    expect(result.stdout).toMatch(/^dupin \d+\.\d+\.\d+\S* \(commit \w+, bun \d+\.\d+\.\d+, \w+-\w+\)/)
  })
})

async function typeScriptBlock(block: ReadmeBlock, index: number): Promise<void> {
  let code = block.code
  if (block.directives.continues === "previous") {
    const previous = blocks.slice(0, index).findLast((b) => TS.has(b.lang))
    if (!previous) throw new Error(`${blockName(block)} continues no TypeScript block`)
    code = `${previous.code}\n${code}`
  }
  const expectEnabled = block.directives["expect-enabled"]
  if (expectEnabled) code += TOOLSET_DUMP
  const toolName = block.directives["call-tool"]
  if (toolName) code += callTool(toolName)
  await withFake(async (fake) => {
    if (toolName) fake.script({ toolCalls: [{ name: toolName, arguments: {} }] })
    for (let i = 0; i < 10; i++) fake.script({ content: `README answer ${i + 1}` })
    const result = await runTypeScript(
      offline(code),
      { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: fake.url },
      savedFiles,
    )
    if (result.code !== 0) throw new Error(`${blockName(block)} exited ${result.code}:\n${result.stderr}`)
    if (expectEnabled) {
      const line = result.stdout.split("\n").find((l) => l.startsWith("README-TOOLSETS "))
      const toolsets = JSON.parse(line?.slice("README-TOOLSETS ".length) ?? "[]") as { name: string }[]
      expect(toolsets.find((t) => t.name === expectEnabled)).toEqual({
        name: expectEnabled,
        status: "enabled",
      } as never)
    }
    if (toolName) {
      const line = result.stdout.split("\n").find((l) => l.startsWith("README-CALLS "))
      const calls = JSON.parse(line?.slice("README-CALLS ".length) ?? "[]")
      expect(calls).toEqual([{ name: toolName, status: "success", error: null }])
    }
    // A block that talks to the model printed what the model answered.
    if (fake.requests.length > 0) expect(result.stdout).toContain("README answer 1")
  })
}

async function yamlBlock(block: ReadmeBlock): Promise<void> {
  const doc = parseYaml(block.code) as Record<string, unknown>
  const dir = mkdtempSync(join(tmpdir(), "dupin-readme-yaml-"))
  const env: Record<string, string> = { OPENAI_API_KEY: "sk-test" }
  for (const [, name] of block.code.matchAll(/\{\{\s*env\.(\w+)\s*\}\}/g))
    env[name as string] = "readme-test-value"
  const isToolsetFile = Object.keys(doc).length === 1 && doc.toolsets !== undefined && !("model" in doc)
  if (isToolsetFile) {
    const file = join(dir, "toolsets.yaml")
    writeFileSync(file, block.code)
    const config = join(dir, "config.yaml")
    writeFileSync(config, `model: openai/gpt-4.1-mini\ncustom_toolsets: [${JSON.stringify(file)}]\n`)
    const { result, toolsets } = await toolsetStatuses(config, env)
    expect(result.stderr).not.toContain("dupin:")
    expect(result.code).toBe(0)
    const expectFailed = block.directives["expect-failed"]
    for (const [name, definition] of Object.entries(doc.toolsets as Record<string, ToolsetDoc>)) {
      const status = toolsets.find((t) => t.name === name)
      expect(status, `toolset ${name}`).toBeDefined()
      // A prerequisite program this machine lacks (journalctl in a container) fails it, rightly.
      const missing = missingPrograms(definition)
      if (missing.length > 0) expect(status?.error).toContain(missing[0])
      else if (name === expectFailed) expect(status?.status).toBe("failed")
      else
        expect({ name, status: status?.status, error: status?.error ?? undefined }).toEqual({
          name,
          status: "enabled",
        } as never)
    }
    return
  }
  // A config file: absolute /etc/dupin paths are made under a temp root, with the README's own
  // YAML toolset as the team file.
  const root = join(dir, "root")
  const code = block.code.replaceAll("/etc/dupin/", `${root}/etc/dupin/`)
  for (const [, path] of code.matchAll(/(\/[^\s\],]+)/g)) {
    const p = path as string
    if (!p.startsWith(root)) continue
    if (p.endsWith(".yaml") || p.endsWith(".yml")) {
      mkdirSync(join(p, ".."), { recursive: true })
      writeFileSync(p, Object.values(savedFiles)[0] ?? "toolsets: {}\n")
    } else mkdirSync(p, { recursive: true })
  }
  const config = join(dir, "config.yaml")
  writeFileSync(config, code)
  const { result, toolsets } = await toolsetStatuses(config, env)
  expect(result.stderr).not.toContain("dupin:")
  expect(result.code).toBe(0)
  const badConfig = toolsets.filter((t) => /config/i.test(t.error ?? ""))
  expect(badConfig).toEqual([])
}

type ToolsetDoc = { prerequisites?: { command?: string }[] }

/** The programs a toolset's prerequisite commands start that are not on PATH here. */
function missingPrograms(definition: ToolsetDoc): string[] {
  return (definition.prerequisites ?? [])
    .map((p) => p.command?.trim().split(/\s+/)[0])
    .filter((program): program is string => program !== undefined && Bun.which(program) === null)
}

function shellBlock(block: ReadmeBlock): void {
  const script =
    block.lang === "console"
      ? block.code
          .split("\n")
          .filter((l) => l.startsWith("$ "))
          .map((l) => l.slice(2))
          .join("\n")
      : block.code
  const syntax = bashSyntax(script)
  expect(syntax.stderr).toBe("")
  expect(syntax.code).toBe(0)
  for (const argv of dupinCommands(script)) {
    expect(() => parseDupinArgv(argv), `dupin ${argv.join(" ")}`).not.toThrow()
  }
}
