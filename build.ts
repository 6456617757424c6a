/**
 * Builds the single-file binary. `bun run build` → dist/dupin for this host;
 * `bun run build --all` → dist/dupin-<os>-<arch> for every supported target.
 * Toolsets, prompts and the model catalog are imported statically, so the binary reads nothing
 * from the build tree at run time.
 */
import { $ } from "bun"
import pkg from "./package.json" with { type: "json" }

const TARGETS = ["linux-x64", "linux-arm64", "darwin-arm64", "darwin-x64"] as const

async function commit(): Promise<string> {
  const out = await $`git rev-parse --short HEAD`.quiet().nothrow()
  return out.exitCode === 0 ? out.stdout.toString().trim() : "unknown"
}

async function build(target: string | undefined, outfile: string, gitCommit: string): Promise<void> {
  const result = await Bun.build({
    entrypoints: ["./src/cli/main.ts"],
    compile: {
      ...(target ? { target: `bun-${target}` as Bun.Build.CompileTarget } : {}),
      outfile,
      // An operator's .env or bunfig.toml in the working directory must not change the binary.
      autoloadDotenv: false,
      autoloadBunfig: false,
    },
    target: "bun",
    format: "esm",
    bytecode: true,
    // Identifiers stay: Elysia relies on function and class names at run time.
    minify: { whitespace: true, syntax: true, identifiers: false },
    define: {
      DUPIN_VERSION: JSON.stringify(pkg.version),
      DUPIN_COMMIT: JSON.stringify(gitCommit),
    },
  })
  if (!result.success) {
    for (const log of result.logs) console.error(log)
    throw new Error(`build failed for ${target ?? "host"}`)
  }
  console.log(`built ${outfile}`)
}

const gitCommit = await commit()
if (process.argv.includes("--all")) {
  for (const target of TARGETS) await build(target, `./dist/dupin-${target}`, gitCommit)
} else {
  await build(undefined, "./dist/dupin", gitCommit)
}
