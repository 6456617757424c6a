import { afterEach, beforeEach } from "bun:test"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type FakeProvider, startFakeProvider } from "../support/fake-provider.ts"
import type { PtySession } from "./pty.ts"

/** The CLI entry, run from source as a real subprocess (what `bun src/main.ts` does). */
export const MAIN = join(import.meta.dir, "../../src/main.ts")

export type CliResult = { code: number; stdout: string; stderr: string }

export type CliOptions = {
  env?: Record<string, string>
  /** Piped to stdin; without it stdin is empty (not a terminal either way). */
  stdin?: string
  cwd?: string
}

/**
 * A clean environment: no provider keys or SVC_* from the developer's shell, an empty HOME, and
 * the fake provider as the only reachable model when one is given.
 */
export function cliEnv(fake?: FakeProvider, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: mkdtempSync(join(tmpdir(), "dupin-cli-home-")),
    // The test run's temp root: what a killed child leaves there is removed with the run.
    TMPDIR: tmpdir(),
    ...(fake ? { OPENAI_API_KEY: "test", OPENAI_BASE_URL: fake.url, MODEL: "openai/gpt-4o" } : {}),
    ...extra,
  }
}

export async function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  const proc = Bun.spawn([process.execPath, MAIN, ...args], {
    env: options.env ?? cliEnv(),
    cwd: options.cwd ?? tmpdir(),
    stdin: options.stdin === undefined ? "ignore" : new TextEncoder().encode(options.stdin),
    stdout: "pipe",
    stderr: "pipe",
  })
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ])
  return { code, stdout, stderr }
}

/** Writes a file into a fresh temp dir and returns its path. */
export function tempFile(name: string, content: string): string {
  const path = join(mkdtempSync(join(tmpdir(), "dupin-cli-")), name)
  writeFileSync(path, content)
  return path
}

/**
 * A YAML toolset (CONTRACT §6) with one tool that needs approval. It echoes its argument, so a
 * test can tell from the result whether it really ran.
 */
export function approvalToolsetFile(): string {
  return tempFile(
    "ops.yaml",
    `toolsets:
  test/ops:
    description: Test operations
    tools:
      - name: restart_service
        description: Restart a service
        command: "echo restarted {{ service }}"
        parameters:
          service: { type: string, description: service name }
        requires_approval: true
`,
  )
}

/** The content of the last message of a recorded provider request. */
export function messagesOf(body: Record<string, unknown> | null): Array<{ role: string; content: unknown }> {
  return (body?.messages ?? []) as Array<{ role: string; content: unknown }>
}

/**
 * Per-test timeout for tests that start `dupin` as a subprocess: each start compiles the sources,
 * which takes seconds on a loaded CI machine (Bun's default is 5 s).
 */
export const SUBPROCESS_TIMEOUT_MS = 60_000

/**
 * For a file of terminal tests (call once, at its top level): a fake provider started for each
 * test, and the pseudo-terminal session a test opens; both are ended after each test.
 */
export function terminalTests(): { readonly fake: FakeProvider; session: PtySession | undefined } {
  let fake: FakeProvider | undefined
  const state = {
    get fake(): FakeProvider {
      if (!fake) throw new Error("the fake provider runs only during a test")
      return fake
    },
    session: undefined as PtySession | undefined,
  }
  beforeEach(async () => {
    fake = await startFakeProvider()
  })
  afterEach(async () => {
    state.session?.proc.kill()
    state.session = undefined
    await fake?.stop()
  })
  return state
}
