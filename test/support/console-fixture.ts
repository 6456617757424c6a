/**
 * The web console in a real browser: a fake OpenAI-compatible provider, a real `dupin serve`
 * subprocess with a small YAML toolset, and Debian's headless chromium driven by playwright-core.
 * One browser per test file (the CI machine has two cores); `stop()` ends all of it.
 */
import { afterAll, beforeAll, describe } from "bun:test"
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type Browser, chromium, type Page } from "playwright-core"
import { type ServerProcess, startServerProcess } from "../bench/support/processes.ts"
import { type FakeProvider, startFakeProvider } from "./fake-provider.ts"

export const CHROMIUM = process.env.DUPIN_CHROMIUM ?? "/usr/bin/chromium"
/** DUPIN_BINARY=dist/dupin runs the tests against the compiled binary: its page is the embedded one. */
const SERVE = process.env.DUPIN_BINARY ? [process.env.DUPIN_BINARY] : ["bun", "src/main.ts"]

/** Why browser tests cannot run here, or undefined when they can (CI installs chromium). */
export function chromiumMissing(): string | undefined {
  return existsSync(CHROMIUM)
    ? undefined
    : `console browser tests skipped: ${CHROMIUM} not found (apt-get install chromium, or set DUPIN_CHROMIUM)`
}

/**
 * One fixture for a whole test file, started before its tests and stopped after them. `suite` is
 * `describe`, or `describe.skip` with the reason printed when chromium is absent.
 */
export function fileFixture(options: FixtureOptions = {}): {
  suite: typeof describe
  fixture: () => ConsoleFixture
} {
  const missing = chromiumMissing()
  if (missing) console.warn(missing)
  let started: ConsoleFixture | undefined
  beforeAll(async () => {
    if (!missing) started = await startConsole(options)
  }, 120_000)
  afterAll(async () => {
    await started?.stop()
  }, 30_000)
  return {
    suite: missing ? describe.skip : describe,
    fixture: () => {
      if (!started) throw new Error("the console fixture is not running")
      return started
    },
  }
}

/**
 * `note` prints its text; `restart` needs approval, prints what it restarted and leaves a file
 * `restarted-<service>` in HOME (the fixture's folder; only an approved call sees a writable file
 * system), the side effect a test checks; `nap` sleeps with an argument no other process has, so a
 * test can find it; `spew` prints the numbers 1 to `count`, one a line (long output).
 */
export const NAP_SECONDS = "37.31"

function toolsetYaml(): string {
  return `toolsets:
  console/tools:
    description: Tools for the console tests
    tools:
      - name: note
        description: Print a note
        command: "printf '%s\\n' {{ text }}"
        parameters:
          text: { type: string }
      - name: restart
        description: Restart a service
        command: "echo restarted {{ service }} | tee \\"$HOME\\"/restarted-{{ service }}"
        parameters:
          service: { type: string }
        requires_approval: true
      - name: nap
        description: Sleep for a while
        command: "sleep ${NAP_SECONDS}"
      - name: spew
        description: Print many lines
        command: "seq 1 {{ count }}"
        parameters:
          count: { type: string }
`
}

/**
 * A fresh server's first chat loads the tokenizer and builds the toolsets (seconds on a small CI
 * machine): done once here, so the tests' own waits measure the page, not the start-up.
 */
async function warmUp(url: string, fake: FakeProvider, token: string | undefined): Promise<void> {
  fake.script({ content: "warm" })
  const res = await fetch(`${url}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ ask: "warm up" }),
  })
  if (!res.ok) throw new Error(`warm-up chat failed: ${res.status} ${await res.text()}`)
}

export type ConsoleFixture = {
  fake: FakeProvider
  server: ServerProcess
  dir: string
  url: string
  browser: Browser
  /** A fresh browser context (own storage) and page, opened at the console. */
  open(options?: {
    colorScheme?: "light" | "dark"
    /** Without the page's CSP: proves the sanitizer alone keeps script from running. */
    bypassCSP?: boolean
  }): Promise<Page>
  stop(): Promise<void>
}

export type FixtureOptions = {
  token?: string
  /** Replaces the default model block (`model: openai/gpt-4o` and its key and base), given the fake provider's URL. */
  modelYaml?: (providerUrl: string) => string
  /** More `server:` keys, as YAML lines (`console: false`). */
  serverYaml?: string
  /** More top-level keys, as YAML lines (`alerts:`, `store:`), given the fixture's directory and the fake provider's URL. */
  configYaml?: (dir: string, providerUrl: string) => string
  serveArgs?: string[]
  launchBrowser?: boolean
}

export async function startConsole(options: FixtureOptions = {}): Promise<ConsoleFixture> {
  const fake = await startFakeProvider()
  const dir = mkdtempSync(join(tmpdir(), "dupin-console-"))
  const toolsetPath = join(dir, "toolsets.yaml")
  const configPath = join(dir, "config.yaml")
  writeFileSync(toolsetPath, toolsetYaml())
  writeFileSync(
    configPath,
    `${options.modelYaml?.(fake.url) ?? `model: openai/gpt-4o\napi_key: test-key\napi_base: ${fake.url}`}
custom_toolsets: [${toolsetPath}]
toolsets:
  kubernetes/core: { enabled: false }
server:
  ${options.token ? `auth_token: ${options.token}` : "approval_ttl: 3600"}
  ${options.serverYaml ?? ""}
${options.configYaml?.(dir, fake.url) ?? ""}
`,
  )
  const server = await startServerProcess(
    [...SERVE, "serve", "--config", configPath, "--port", "0", ...(options.serveArgs ?? [])],
    { HOME: dir },
  )
  let browser: Browser | undefined
  try {
    if (options.launchBrowser !== false) await warmUp(server.url, fake, options.token)
    if (options.launchBrowser !== false)
      browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] })
  } catch (error) {
    await server.stop()
    await fake.stop()
    throw error
  }
  const contexts: Array<{ close(): Promise<void> }> = []
  return {
    fake,
    server,
    dir,
    url: server.url,
    get browser(): Browser {
      if (!browser) throw new Error("started without a browser")
      return browser
    },
    async open(openOptions = {}) {
      if (!browser) throw new Error("started without a browser")
      const context = await browser.newContext({
        colorScheme: openOptions.colorScheme ?? "light",
        bypassCSP: openOptions.bypassCSP === true,
        viewport: { width: 1100, height: 720 },
      })
      contexts.push(context)
      const page = await context.newPage()
      await page.goto(server.url)
      return page
    },
    async stop() {
      for (const context of contexts) await context.close().catch(() => {})
      await browser?.close()
      // SIGKILL: a graceful stop waits out the drain delay, and each test has checked its processes.
      await server.stop("SIGKILL")
      await fake.stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
