// The binary gets the built-in toolsets parsed at build time (build.ts inlines them as JSON), so a
// broken built-in file must fail `bun run build`, saying which file and line, before anything is
// compiled.
import { expect, test } from "bun:test"
import { appendFileSync, symlinkSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { checkout, REPO, run } from "./user-project.ts"

test("a broken built-in toolset file fails the build, naming the file and line", async () => {
  const tree = await checkout()
  symlinkSync(join(REPO, "node_modules"), join(tree, "node_modules"))
  appendFileSync(join(tree, "toolsets/helm.yaml"), "  broken: [\n")
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "", TMPDIR: tmpdir() }
  const result = await run([process.execPath, "run", "build"], tree, env)
  expect(result.code).toBe(1)
  expect(result.stderr).toMatch(
    /^build failed: built-in toolsets: toolsets\/helm\.yaml:\d+:\d+: YAML syntax error/m,
  )
  expect(await Bun.file(join(tree, "dist/dupin")).exists()).toBe(false)
}, 60_000)
