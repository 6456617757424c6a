/**
 * The built-in YAML toolsets parsed and strictly validated, as JSON. The library and `bun
 * src/main.ts` call it at first use (from the YAML files shipped in the package); build.ts calls it
 * once and inlines the result into the binary, so a broken built-in file fails `bun run build` and
 * the binary only deserialises JSON at start-up (no YAML parsing per start).
 */
import { parseToolsetFile } from "../loader.ts"
import { builtinToolsetSources } from "./sources.ts"

export function builtinToolsetsJson(): string {
  return JSON.stringify(builtinToolsetSources().flatMap((s) => parseToolsetFile(s.text, s.fileName)))
}
