/**
 * Recording stand-ins for cluster CLIs. Each program (`kubectl`, `helm`, `docker`, …) is a tiny
 * script in a temp dir put first on the tool PATH: it appends its exact argv as one JSON line to
 * `calls.jsonl`, prints the canned stdout set with `respond`, and exits with the canned code. The
 * bundled toolsets are built through the real loader and run through the real ToolExecutor.
 */
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { configureContainment } from "../../src/tool/containment/index.ts"
import { ToolExecutor } from "../../src/tool/executor.ts"
import type { StructuredToolResult } from "../../src/tool/result.ts"
import { DEFAULT_TOOL_LIMITS } from "../../src/tool/tool.ts"
import { buildToolEnv } from "../../src/tool/tool-env.ts"
import type { Toolset } from "../../src/tool/toolset.ts"
import { builtinToolsetSources } from "../../src/toolset/builtin/index.ts"
import { buildToolsets, parseToolsetFile } from "../../src/toolset/loader.ts"

// Run by bun through its shebang; argv[1] is the script's own path, so one body serves every name.
const STAND_IN = `
const fs = require("node:fs")
const path = require("node:path")
const self = process.argv[1]
const name = path.basename(self)
const dir = path.dirname(self)
fs.appendFileSync(path.join(dir, "calls.jsonl"), JSON.stringify([name, ...process.argv.slice(2)]) + "\\n")
const out = path.join(dir, name + ".stdout")
if (fs.existsSync(out)) process.stdout.write(fs.readFileSync(out))
const err = path.join(dir, name + ".stderr")
if (fs.existsSync(err)) process.stderr.write(fs.readFileSync(err))
const code = path.join(dir, name + ".exit")
process.exit(fs.existsSync(code) ? Number(fs.readFileSync(code, "utf8")) : 0)
`

export function loadBuiltinToolsets(): Toolset[] {
  return buildToolsets(builtinToolsetSources().flatMap((s) => parseToolsetFile(s.text, s.fileName)))
}

export class StandIns {
  readonly dir: string
  readonly executor: ToolExecutor
  /** Where injected `touch` commands in the tests would leave their marks. */
  readonly markDir: string
  #calls = 0

  constructor(programs: string[], options: { pathDirs?: string[] } = {}) {
    // Stand-ins record their calls in their own folder, so they run uncontained. Said here, not
    // inherited: containment is process-wide, and any earlier test file that built a runtime
    // (createRuntime applies the config's containment) would leave the file system read-only.
    configureContainment({ mode: "off" })
    this.dir = mkdtempSync(join(tmpdir(), "dupin-stand-ins-"))
    this.markDir = mkdtempSync(join(tmpdir(), "dupin-stand-ins-marks-"))
    for (const program of programs) {
      const file = join(this.dir, program)
      writeFileSync(file, `#!${process.execPath}\n${STAND_IN}`)
      chmodSync(file, 0o755)
    }
    const pathDirs = options.pathDirs ?? [this.dir, ...(process.env.PATH ?? "").split(":")]
    const env = buildToolEnv(process.env, { PATH: pathDirs.join(":") })
    this.executor = new ToolExecutor(loadBuiltinToolsets(), { limits: DEFAULT_TOOL_LIMITS, env })
  }

  toolset(name: string): Toolset {
    const found = this.executor.toolsets.find((t) => t.name === name)
    if (!found) throw new Error(`no toolset ${name}`)
    return found
  }

  /** Canned answer of `program` for the calls that follow. */
  respond(program: string, stdout: string, options: { exitCode?: number; stderr?: string } = {}): void {
    writeFileSync(join(this.dir, `${program}.stdout`), stdout)
    writeFileSync(join(this.dir, `${program}.stderr`), options.stderr ?? "")
    writeFileSync(join(this.dir, `${program}.exit`), String(options.exitCode ?? 0))
  }

  /** Forgets recorded calls and canned answers. */
  reset(): void {
    for (const name of readdirSync(this.dir)) {
      if (/\.(stdout|stderr|exit|jsonl)$/.test(name)) rmSync(join(this.dir, name))
    }
  }

  /** Every stand-in invocation since the last reset, as [program, ...argv]. */
  calls(): string[][] {
    const log = join(this.dir, "calls.jsonl")
    if (!existsSync(log)) return []
    return readFileSync(log, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as string[])
  }

  /** A model's tool call, prepared and run exactly as the engine does. */
  async call(name: string, args: Record<string, unknown>): Promise<StructuredToolResult> {
    const prepared = this.executor.prepare({
      id: `call-${++this.#calls}`,
      type: "function",
      function: { name, arguments: JSON.stringify(args) },
    })
    return this.executor.run(prepared, new AbortController().signal)
  }

  /** An absolute path for an injected `touch`; it must never exist. */
  marker(name: string): string {
    return join(this.markDir, name)
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true })
    rmSync(this.markDir, { recursive: true, force: true })
  }
}

/** Canned multi-line output, one argument per line. */
export function lines(...text: string[]): string {
  return `${text.join("\n")}\n`
}
