/**
 * dupin's own tool names are written once: every module of src/ takes them from
 * tool/core-names.ts, so a rename cannot leave one place (a never-deferred set, a planning check,
 * a refused MCP name) on the old name.
 */
import { expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { Glob } from "bun"
import { CORE_TOOL_NAMES, PLANNING_TOOLSET } from "../../src/tool/core-names.ts"

const SRC = resolve(import.meta.dir, "../../src")
const HOME = join(SRC, "tool/core-names.ts")

test("no module of src/ but tool/core-names.ts spells a core tool name as a string literal", () => {
  const names = [...CORE_TOOL_NAMES, PLANNING_TOOLSET]
  expect(names).toEqual(["TodoWrite", "read_tool_output", "search_tools", "core_investigation"])
  const literal = new RegExp(`(["'])(?:${names.join("|")})\\1`)
  const found: string[] = []
  for (const path of new Glob("**/*.{ts,tsx,js}").scanSync(SRC)) {
    const file = join(SRC, path)
    if (file === HOME) continue
    for (const [i, line] of readFileSync(file, "utf8").split("\n").entries()) {
      if (literal.test(line)) found.push(`src/${path}:${i + 1}: ${line.trim()}`)
    }
  }
  expect(found).toEqual([])
})
