import { parse, type Word } from "unbash"
import { literalWord } from "../words.ts"

/**
 * Every simple command a shell script would run, wherever it stands (after `;`, inside `if`, in a
 * `$(…)`), so the hard-deny list holds for an approved `bash -c 'ls; rm -r /x'` too. `opaque`:
 * some command's words are computed by the shell (variables, substitutions), so what it runs
 * cannot be known.
 */
export type ScriptCommands = { commands: string[][]; opaque: boolean }

/** Stands in `commands` for a word the shell computes (`$x`, `"$@"`, `d/*`, `$(…)`). */
export const COMPUTED = "\u0000computed"

export function scriptCommands(script: string): ScriptCommands | undefined {
  let tree: unknown
  try {
    tree = parse(script)
  } catch {
    return undefined
  }
  const result: ScriptCommands = { commands: [], opaque: false }
  walk(tree, result, 0)
  return result
}

const MAX_DEPTH = 64

function walk(node: unknown, into: ScriptCommands, depth: number): void {
  if (depth > MAX_DEPTH) {
    into.opaque = true
    return
  }
  if (Array.isArray(node)) {
    for (const child of node) walk(child, into, depth + 1)
    return
  }
  if (node === null || typeof node !== "object") return
  const record = node as Record<string, unknown>
  if (record.type === "Command") {
    const name = record.name as Word | undefined
    const words = [name, ...((record.suffix as Array<{ type: string }> | undefined) ?? [])].filter(
      (w): w is Word => w !== undefined && (w as { type: string }).type === "Word",
    )
    const argv: string[] = []
    for (const word of words) {
      const literal = literalWord(word)
      if (literal.ok) argv.push(literal.value)
      else {
        into.opaque = true
        argv.push(COMPUTED)
      }
    }
    if (name !== undefined) into.commands.push(argv)
  }
  for (const [key, value] of Object.entries(record)) {
    if (key !== "type" && typeof value === "object") walk(value, into, depth + 1)
  }
}
