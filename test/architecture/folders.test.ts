/**
 * The map stays true: src/ folders import each other without cycles, no module hides a dependency
 * on another folder behind `require` or `import()`, and docs/architecture.md's folder table names
 * exactly the folders that exist.
 */
import { expect, test } from "bun:test"
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { Glob } from "bun"

const SRC = resolve(import.meta.dir, "../../src")
const SPECIFIER = /(?:\bfrom|\bimport|\brequire)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g
const LAZY = /(?:\brequire|\bimport)\s*\(\s*["'](\.{1,2}\/[^"']+)["']/g

/** The executable's entry: it may import every face, and load a command's module when it is chosen. */
const ENTRY = join(SRC, "main.ts")

/** A module's node in the graph: its folder; src/'s own files are shared leaves, main.ts the entry. */
const folderOf = (file: string) => {
  if (file === ENTRY) return "(entry)"
  const parts = relative(SRC, file).split("/")
  return parts.length > 1 && parts[0] ? parts[0] : "(root)"
}
const files = [...new Glob("**/*.ts").scanSync(SRC)].map((f) => join(SRC, f))
const text = new Map(files.map((f) => [f, readFileSync(f, "utf8")]))

function folderGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>()
  for (const [file, source] of text) {
    for (const [, spec] of source.matchAll(SPECIFIER)) {
      const target = resolve(dirname(file), spec as string)
      if (!target.startsWith(`${SRC}/`)) continue
      const from = folderOf(file)
      const to = folderOf(target)
      if (from === to) continue
      if (!graph.has(from)) graph.set(from, new Set())
      graph.get(from)?.add(to)
    }
  }
  return graph
}

/** One cycle as a path `a -> b -> a`, or undefined. */
function findCycle(graph: Map<string, Set<string>>): string | undefined {
  const state = new Map<string, "open" | "done">()
  const path: string[] = []
  const visit = (node: string): string | undefined => {
    if (state.get(node) === "done") return undefined
    if (state.get(node) === "open") return [...path.slice(path.indexOf(node)), node].join(" -> ")
    state.set(node, "open")
    path.push(node)
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next)
      if (cycle) return cycle
    }
    path.pop()
    state.set(node, "done")
    return undefined
  }
  for (const node of graph.keys()) {
    const cycle = visit(node)
    if (cycle) return cycle
  }
  return undefined
}

test("src/ folders import each other without a cycle", () => {
  expect(findCycle(folderGraph())).toBeUndefined()
})

test("no module loads another folder's module lazily (a dependency hidden from the import graph)", () => {
  const hidden: string[] = []
  for (const [file, source] of text) {
    if (file === ENTRY) continue
    for (const [, spec] of source.matchAll(LAZY)) {
      const target = resolve(dirname(file), spec as string)
      if (folderOf(target) !== folderOf(file)) hidden.push(`${relative(SRC, file)} loads ${spec}`)
    }
  }
  expect(hidden).toEqual([])
})

test("docs/architecture.md's folder table names exactly the folders of src/", () => {
  const doc = readFileSync(resolve(SRC, "../docs/architecture.md"), "utf8")
  const table = doc.slice(doc.indexOf("## Folders"))
  const documented = [...table.matchAll(/^\| `([a-z-]+)\/` \|/gm)].map((m) => m[1]).sort()
  const actual = readdirSync(SRC, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()
  expect(documented).toEqual(actual)
})

test("the cycle check sees a cycle and the lazy-load check sees a require (guard)", () => {
  expect(
    findCycle(
      new Map([
        ["a", new Set(["b"])],
        ["b", new Set(["c"])],
        ["c", new Set(["a"])],
      ]),
    ),
  ).toBe("a -> b -> c -> a")
  expect([...'const x = require("../toolset/assemble.ts")'.matchAll(LAZY)].length).toBe(1)
})
