// The library can be installed (issue 12 item 1): `bun pm pack`, then a fresh project installs
// dupin from the tarball, from a path to a checkout and from a git URL (offline, from Bun's
// cache), and runs the README's library examples verbatim and the package's `dupin` bin, the
// way a user does. Before the fix, the first import failed with "macros cannot be run from
// node_modules" (the built-in toolsets were parsed by a Bun macro).
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { type FakeProvider, startFakeProvider } from "../support/fake-provider.ts"
import { blockName, type ReadmeBlock, readmeBlocksOf } from "../support/readme-blocks.ts"
import {
  checkout,
  gitRepo,
  installedProject,
  isolatedEnv,
  pack,
  REPO,
  type Run,
  run,
  type Source,
  sandbox,
} from "./user-project.ts"

const KINDS = ["tarball", "path", "git"] as const
type Kind = (typeof KINDS)[number]

const blocks = readmeBlocksOf(join(REPO, "README.md"))
const isTs = (b: ReadmeBlock) => b.lang === "ts" || b.lang === "typescript"
/** The library examples: every TypeScript block of the README that is run. */
const examples = blocks.filter((b) => isTs(b) && b.notTested === undefined)
const savedFiles = Object.fromEntries(
  blocks.filter((b) => b.directives["save-as"]).map((b) => [b.directives["save-as"] as string, b.code]),
)

let env: Record<string, string>
let tarball: string
const projects = {} as Record<Kind, string>
let statusPage: ReturnType<typeof Bun.serve>

beforeAll(async () => {
  const { home, cache } = await sandbox()
  env = isolatedEnv(cache, home)
  const tree = await checkout()
  tarball = await pack(tree, env)
  const git = await gitRepo(tree, env)
  const sources: Record<Kind, Source> = {
    tarball: { kind: "tarball", path: tarball },
    path: { kind: "path", path: tree },
    git: { kind: "git", ...git },
  }
  for (const kind of KINDS) projects[kind] = await installedProject(sources[kind], env)
  // The class-toolset example's status page, answered locally: tests never reach the internet.
  statusPage = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => Response.json([]) })
}, 120_000)

afterAll(() => statusPage?.stop(true))

/** A README TypeScript block as the program a reader runs (with the block it continues). */
function program(block: ReadmeBlock): string {
  let code = block.code
  if (block.directives.continues === "previous") {
    const previous = blocks.slice(0, blocks.indexOf(block)).findLast(isTs)
    if (!previous) throw new Error(`${blockName(block)} continues no TypeScript block`)
    code = `${previous.code}\n${code}`
  }
  const toolset = block.directives["expect-enabled"]
  if (toolset) {
    code +=
      "\n// appended by the test: the status of the toolset the example adds\n" +
      "const __ai = config.createConsoleToolCallingLLM()\nawait __ai.toolExecutor.ensureReady()\n" +
      `const __t = __ai.toolExecutor.toolsets.find((t) => t.name === ${JSON.stringify(toolset)})\n` +
      'console.log("TOOLSET-STATUS " + JSON.stringify({ status: __t?.status, error: __t?.error }))\n'
  }
  return code.replaceAll("https://status.example.com", `http://127.0.0.1:${statusPage.port}`)
}

async function runExample(project: string, block: ReadmeBlock): Promise<{ result: Run; fake: FakeProvider }> {
  const fake = await startFakeProvider()
  try {
    for (let i = 0; i < 10; i++) fake.script({ content: `README answer ${i + 1}` })
    for (const [name, text] of Object.entries(savedFiles)) writeFileSync(join(project, name), text)
    writeFileSync(join(project, "example.ts"), program(block))
    const result = await run([process.execPath, "example.ts"], project, {
      ...env,
      OPENAI_API_KEY: "sk-test",
      OPENAI_BASE_URL: fake.url,
    })
    return { result, fake }
  } finally {
    await fake.stop()
  }
}

describe("the package", () => {
  test("the README has library examples to run", () => {
    expect(examples.length).toBeGreaterThanOrEqual(2)
    expect(examples.some((b) => b.code.includes('from "dupin/config"'))).toBe(true)
  })

  test("the tarball holds the library, the toolsets, README and LICENSE; no tests, no build output", async () => {
    const listing = await run(["tar", "-tzf", tarball], REPO, env)
    expect(listing.code).toBe(0)
    const files = listing.stdout.split("\n").filter(Boolean)
    const manifest = (await Bun.file(join(REPO, "package.json")).json()) as {
      exports: Record<string, string | Record<string, string>>
      bin: Record<string, string>
    }
    const targets = Object.values(manifest.exports).flatMap((t) =>
      typeof t === "string" ? [t] : Object.values(t),
    )
    for (const target of [
      ...targets,
      ...Object.values(manifest.bin),
      "LICENSE",
      "README.md",
      "toolsets/linux-host.yaml",
    ])
      expect(files).toContain(`package/${target.replace(/^\.\//, "")}`)
    const unwanted = files.filter(
      (f) => !/^package\/(src\/|toolsets\/|LICENSE$|README\.md$|package\.json$)/.test(f),
    )
    expect(unwanted).toEqual([])
  })
})

for (const kind of KINDS) {
  describe(`dupin installed from a ${kind}`, () => {
    test("the bin runs from node_modules/.bin and through bunx", async () => {
      const bin = join(projects[kind], "node_modules/.bin/dupin")
      const version = await run([bin, "version"], projects[kind], env)
      expect(version.stderr).toBe("")
      const { version: packageVersion } = (await Bun.file(join(REPO, "package.json")).json()) as {
        version: string
      }
      expect(version.stdout).toStartWith(`dupin ${packageVersion} (commit source, bun `)
      const listed = await run([process.execPath, "x", "dupin", "toolsets", "--json"], projects[kind], env)
      expect(listed.stderr).toBe("")
      expect(listed.code).toBe(0)
      const names = (JSON.parse(listed.stdout) as { name: string }[]).map((t) => t.name)
      // The built-in YAML toolsets, parsed from the files shipped in the package.
      expect(names).toEqual(
        expect.arrayContaining(["kubernetes/core", "linux/host", "helm/core", "docker/core"]),
      )
    }, 60_000)

    for (const block of examples) {
      test(`${blockName(block)} runs verbatim`, async () => {
        const { result, fake } = await runExample(projects[kind], block)
        if (result.code !== 0) throw new Error(`${blockName(block)} exited ${result.code}:\n${result.stderr}`)
        if (fake.requests.length > 0) expect(result.stdout).toContain("README answer 1")
        const toolset = result.stdout.split("\n").find((l) => l.startsWith("TOOLSET-STATUS "))
        if (block.directives["expect-enabled"])
          expect(JSON.parse(toolset?.slice("TOOLSET-STATUS ".length) ?? "{}")).toEqual({ status: "enabled" })
      }, 60_000)
    }
  })
}

test("tsc type-checks the README examples against the installed package (types are its .ts sources)", async () => {
  const project = projects.tarball
  const tsconfig = {
    // What `bun init` writes, with Bun's types.
    compilerOptions: {
      lib: ["ESNext"],
      target: "ESNext",
      module: "Preserve",
      moduleDetection: "force",
      moduleResolution: "bundler",
      allowImportingTsExtensions: true,
      verbatimModuleSyntax: true,
      noEmit: true,
      strict: true,
      skipLibCheck: true,
      noFallthroughCasesInSwitch: true,
      noUncheckedIndexedAccess: true,
      noImplicitOverride: true,
      types: ["bun-types"],
      typeRoots: [join(REPO, "node_modules")],
    },
    files: examples.map((_, i) => `typed-${i}.ts`),
  }
  examples.forEach((block, i) => {
    writeFileSync(join(project, `typed-${i}.ts`), `${program(block)}\nexport {}\n`)
  })
  writeFileSync(join(project, "tsconfig.json"), JSON.stringify(tsconfig))
  const checked = await run([join(REPO, "node_modules/.bin/tsc"), "-p", project], project, env)
  expect(checked.stdout + checked.stderr).toBe("")
  expect(checked.code).toBe(0)
}, 60_000)
