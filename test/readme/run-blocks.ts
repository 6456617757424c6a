/**
 * How the README's examples are run (test/readme/readme-blocks.test.ts):
 * - TypeScript: as a file of a fresh project whose node_modules holds `dupin` (a symlink to this
 *   repository, so `dupin/...` resolves through the package's exports) and `@sinclair/typebox`,
 *   run by `bun` in a subprocess against the fake OpenAI-compatible provider;
 * - YAML config and toolset files: through `dupin toolsets --json`, the check an operator runs;
 * - shell: `bash -n` for the syntax, and every `dupin` command in it through the CLI's own
 *   argument parser (`dupin version` is also run).
 */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { basename, join } from "node:path"
import { parse } from "unbash"
import { commandTable } from "../../src/cli/commands.ts"
import { parseArgs } from "../../src/commands/args.ts"

export const REPO = join(import.meta.dir, "../..")
export const MAIN = join(REPO, "src/main.ts")

export type RunResult = { code: number; stdout: string; stderr: string }

/** A clean child environment; TMPDIR is passed on so the child's temp dirs stay in the run's root. */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? tmpdir(),
    TMPDIR: tmpdir(),
    ...extra,
  }
}

export async function run(argv: string[], cwd: string, env: Record<string, string>): Promise<RunResult> {
  const proc = Bun.spawn(argv, { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" })
  const timer = setTimeout(() => proc.kill("SIGKILL"), 60_000)
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ])
  clearTimeout(timer)
  return { code, stdout, stderr }
}

/** A fresh project directory that depends on dupin the way a user's project does. */
export function userProject(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "dupin-readme-"))
  mkdirSync(join(dir, "node_modules/@sinclair"), { recursive: true })
  symlinkSync(REPO, join(dir, "node_modules/dupin"))
  symlinkSync(join(REPO, "node_modules/@sinclair/typebox"), join(dir, "node_modules/@sinclair/typebox"))
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  return dir
}

/** Runs a TypeScript example in a user project with the given files beside it. */
export function runTypeScript(
  code: string,
  env: Record<string, string>,
  files: Record<string, string> = {},
): Promise<RunResult> {
  const dir = userProject({ ...files, "example.ts": code })
  return run([process.execPath, "example.ts"], dir, childEnv(env))
}

/** `dupin toolsets --json` over a config file: the toolsets' statuses, or the CLI's failure. */
export async function toolsetStatuses(
  configPath: string,
  env: Record<string, string>,
): Promise<{ result: RunResult; toolsets: { name: string; status: string; error?: string }[] }> {
  const result = await run(
    [process.execPath, MAIN, "toolsets", "--json", "--config", configPath],
    REPO,
    childEnv(env),
  )
  const toolsets = result.code === 0 ? JSON.parse(result.stdout) : []
  return { result, toolsets }
}

const WRAPPERS = new Set(["sudo", "systemd-run", "env", "exec", "nohup", "time"])

/** The argv of every `dupin` (or `./dist/dupin`, `/usr/local/bin/dupin`) command in a shell text. */
export function dupinCommands(script: string): string[][] {
  const found: string[][] = []
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== "object") return
    if (Array.isArray(node)) {
      for (const item of node) visit(item)
      return
    }
    const record = node as Record<string, unknown>
    if (record.type === "Command") {
      const words = [record.name, ...((record.suffix as unknown[]) ?? [])]
        .filter((w): w is { type: string; value: string } => (w as { type?: string })?.type === "Word")
        .map((w) => w.value)
      // `dupin ...`, `./dist/dupin ...`, or a wrapper (sudo, systemd-run, env) running a dupin path
      // (a path to dupin followed by one of its commands: `--home-dir /var/lib/dupin` is not one).
      const name = words[0] ?? ""
      const at =
        basename(name) === "dupin"
          ? 0
          : WRAPPERS.has(basename(name))
            ? words.findIndex(
                (w, i) =>
                  w.includes("/") && basename(w) === "dupin" && Object.hasOwn(COMMANDS, words[i + 1] ?? ""),
              )
            : -1
      if (at >= 0) found.push(words.slice(at + 1))
    }
    for (const value of Object.values(record)) visit(value)
  }
  visit(parse(script))
  return found
}

const COMMANDS = commandTable(async () => async () => 0)
const TOOLSETS_ACTIONS = new Set(["list", "check"])

/** Parses one dupin argv the way `dupin` does; throws the CLI's UsageError when it would refuse it. */
export function parseDupinArgv(argv: readonly string[]): void {
  const [command, ...rest] = argv
  if (command === undefined || command === "--help" || command === "--version") return
  const entry = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined
  if (!entry) throw new Error(`unknown dupin command "${command}"`)
  const args = parseArgs(rest, entry.options, command)
  const positionals = args.positionals
  if (command === "toolsets" && positionals.some((p) => !TOOLSETS_ACTIONS.has(p))) {
    throw new Error(`dupin toolsets takes list or check, not ${positionals.join(" ")}`)
  }
  // dupin eval takes the folders of cases as arguments.
  if (command === "eval") return
  if (command !== "ask" && command !== "toolsets" && positionals.length > 0) {
    throw new Error(`dupin ${command} takes no arguments, got ${positionals.join(" ")}`)
  }
}

/** `bash -n`: the block is valid shell. */
export function bashSyntax(script: string): RunResult {
  const proc = Bun.spawnSync(["bash", "-n"], { stdin: new TextEncoder().encode(script), env: childEnv() })
  return { code: proc.exitCode ?? 1, stdout: proc.stdout.toString(), stderr: proc.stderr.toString() }
}
