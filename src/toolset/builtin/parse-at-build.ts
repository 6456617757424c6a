/**
 * Runs as a Bun macro (`with { type: "macro" }`): the built-in YAML toolsets are parsed and
 * strictly validated when the bundle is built, so a broken built-in file fails `bun run build`
 * and the binary only deserialises JSON at startup (~80 ms of YAML parsing saved per start).
 * Under `bun` from source the macro runs when index.ts is transpiled, so edits to toolsets/*.yaml
 * are picked up as before.
 */
import { parseToolsetFile } from "../loader.ts"
import { builtinToolsetSources } from "./sources.ts"

export function builtinToolsetsJson(): string {
  try {
    return JSON.stringify(builtinToolsetSources().flatMap((s) => parseToolsetFile(s.text, s.fileName)))
  } catch (error) {
    // Bun reports a throwing macro only as "cannot coerce Exception to Bun's AST": say why first.
    console.error(`built-in toolsets: ${error instanceof Error ? error.message : String(error)}`)
    throw error
  }
}
