/**
 * The default YAML toolsets. `builtinToolsetSources` gives their text (embedded by
 * `bun build --compile`, so the binary reads nothing from the build tree at run time);
 * `builtinToolsetDefinitions` gives them parsed and validated, work done once at build time.
 */
import { log } from "../../log.ts"
import type { ToolsetDefinition } from "../schema.ts"
import { builtinToolsetsJson } from "./parse-at-build.ts" with { type: "macro" }

export { builtinToolsetSources, type ToolsetSource } from "./sources.ts"

/** What `parseToolsetFile` returns for every built-in file, fresh objects on each call. */
export function builtinToolsetDefinitions(): ToolsetDefinition[] {
  const definitions = JSON.parse(builtinToolsetsJson()) as ToolsetDefinition[]
  // parseToolsetFile logged this at build time; say it at run time too, once per file.
  const ignored = Map.groupBy(
    definitions.flatMap((d) => d.ignored.map((key) => ({ file: d.fileName, key }))),
    (entry) => entry.file,
  )
  for (const [file, entries] of ignored) {
    log.info("toolset file: HolmesGPT keys accepted but not used", { file, keys: entries.map((e) => e.key) })
  }
  return definitions
}
