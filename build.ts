/**
 * Builds the single-file binary. `bun run build` → dist/dupin for this host;
 * `bun run build --all` → dist/dupin-<os>-<arch> for every supported target.
 * Toolsets, prompts and the model catalog are imported statically, so the binary reads nothing
 * from the build tree at run time. The built-in YAML toolsets are parsed and validated here, once,
 * and inlined as JSON (DUPIN_BUILTIN_TOOLSETS): a broken built-in file fails the build, and the
 * binary does no YAML parsing at start-up. The tokenizer's vocabularies are built here too and
 * embedded as files (src/llm/vocabulary-file.ts): a start reads ~4 MB instead of parsing the
 * ranks' base64 in a worker, and neither the ranks modules nor that worker are in the binary.
 *
 * Cross-compiling needs the Bun runtime of each target, which Bun downloads from the internet on
 * first use (then caches it). Without network access those targets fail; `--all` then reports
 * each target's outcome and exits 1, and the host build (`bun run build`) is unaffected.
 */
import { mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { $ } from "bun"
import pkg from "./package.json" with { type: "json" }
import type { EncodingName } from "./src/llm/bpe-vocabulary.ts"
import { buildVocabularyFile, VOCABULARY_DIR, vocabularyFileName } from "./src/llm/vocabulary-file.ts"
import { builtinToolsetsJson } from "./src/toolset/builtin/parse.ts"

const TARGETS = ["linux-x64", "linux-arm64", "darwin-arm64", "darwin-x64"] as const
const ENCODINGS: readonly EncodingName[] = ["o200k_base", "cl100k_base"]

async function commit(): Promise<string> {
  const out = await $`git rev-parse --short HEAD`.quiet().nothrow()
  return out.exitCode === 0 ? out.stdout.toString().trim() : "unknown"
}

/** A broken built-in toolset file fails the build with one line naming the file and line. */
function parsedToolsets(): string {
  try {
    return builtinToolsetsJson()
  } catch (error) {
    console.error(
      `build failed: built-in toolsets: ${error instanceof Error ? error.message : String(error)}`,
    )
    process.exit(1)
  }
}

/**
 * Both vocabularies, in a temp folder named VOCABULARY_DIR: the binary embeds the folder under its
 * root by that name, where src/llm/vocabulary-file.ts reads it. Built once for every target (the
 * files are the same on all of them).
 */
async function vocabularies(): Promise<string> {
  const dir = join(mkdtempSync(join(tmpdir(), "dupin-build-")), VOCABULARY_DIR)
  mkdirSync(dir)
  for (const encoding of ENCODINGS) {
    await Bun.write(join(dir, vocabularyFileName(encoding)), await buildVocabularyFile(encoding))
  }
  return dir
}

async function build(
  target: string | undefined,
  outfile: string,
  gitCommit: string,
  toolsets: string,
  vocabularyDir: string,
): Promise<void> {
  const result = await Bun.build({
    // Each worker is an entry of its own: a Worker loads it by path (src/context/search-runner.ts,
    // src/offloop/runner.ts, src/toolset/mcp/stdio-transport.ts).
    entrypoints: [
      "./src/main.ts",
      "./src/context/search-worker.ts",
      "./src/offloop/worker.ts",
      "./src/toolset/mcp/stdio-worker.ts",
    ],
    compile: {
      ...(target ? { target: `bun-${target}` as Bun.Build.CompileTarget } : {}),
      outfile,
      // An operator's .env or bunfig.toml in the working directory must not change the binary.
      autoloadDotenv: false,
      autoloadBunfig: false,
      assets: [vocabularyDir],
    },
    target: "bun",
    format: "esm",
    bytecode: true,
    // Each command's modules and the openai SDK become chunks inside the binary,
    // loaded only when reached: `serve` and `version` no longer load the whole bundle at start.
    splitting: true,
    // Identifiers stay: Elysia relies on function and class names at run time.
    minify: { whitespace: true, syntax: true, identifiers: false },
    define: {
      DUPIN_VERSION: JSON.stringify(pkg.version),
      DUPIN_COMMIT: JSON.stringify(gitCommit),
      DUPIN_BUILTIN_TOOLSETS: JSON.stringify(toolsets),
      DUPIN_PREBUILT_VOCABULARY: "true",
    },
  })
  if (!result.success) {
    throw new Error(result.logs.map((log) => String(log)).join("\n") || "Bun.build reported failure")
  }
}

/** Bun.build throws an AggregateError whose own message is only "Bundle failed". */
function reason(error: unknown): string {
  const inner = error instanceof AggregateError ? error.errors.map(String) : []
  const text = inner.length > 0 ? inner.join("; ") : error instanceof Error ? error.message : String(error)
  return text.split("\n")[0] ?? text
}

function size(path: string): string {
  return `${(statSync(path).size / 1024 / 1024).toFixed(1)} MiB`
}

const gitCommit = await commit()
const toolsets = parsedToolsets()
const vocabularyDir = await vocabularies()
process.on("exit", () => rmSync(dirname(vocabularyDir), { recursive: true, force: true }))
if (!process.argv.includes("--all")) {
  await build(undefined, "./dist/dupin", gitCommit, toolsets, vocabularyDir)
  console.log(`built ./dist/dupin (${size("./dist/dupin")}, ${pkg.version}, commit ${gitCommit})`)
} else {
  let failed = 0
  for (const target of TARGETS) {
    const outfile = `./dist/dupin-${target}`
    try {
      await build(target, outfile, gitCommit, toolsets, vocabularyDir)
      console.log(`${target}: built ${outfile} (${size(outfile)})`)
    } catch (error) {
      failed++
      console.error(
        `${target}: FAILED: ${reason(error)}\n` +
          `  (cross-compiling downloads the Bun ${Bun.version} runtime for ${target}; check network access, ` +
          "or build on a machine of that platform with `bun run build`)",
      )
    }
  }
  console.log(`${TARGETS.length - failed} of ${TARGETS.length} targets built`)
  if (failed > 0) process.exit(1)
}
