/**
 * The default YAML toolsets. `builtinToolsetSources` gives their text (embedded by
 * `bun build --compile`, so the binary reads nothing from the build tree at run time);
 * `builtinToolsetDefinitions` gives them parsed and validated.
 *
 * The binary gets them parsed at build time (build.ts defines DUPIN_BUILTIN_TOOLSETS). An installed
 * package or a checkout parses the YAML once, at first use: no Bun macro, because Bun refuses to
 * run macros from node_modules, which would make the package uninstallable.
 */
import { log } from "../../log.ts"
import type { ToolsetDefinition } from "../schema.ts"
import { builtinToolsetsJson } from "./parse.ts"

export { builtinToolsetSources, type ToolsetSource } from "./sources.ts"

/** The built-in toolsets as JSON, inlined by build.ts; undefined when running from source. */
declare const DUPIN_BUILTIN_TOOLSETS: string | undefined

let json: string | undefined

/** What `parseToolsetFile` returns for every built-in file, fresh objects on each call. */
export function builtinToolsetDefinitions(): ToolsetDefinition[] {
  json ??=
    typeof DUPIN_BUILTIN_TOOLSETS === "string" ? logIgnored(DUPIN_BUILTIN_TOOLSETS) : builtinToolsetsJson()
  return JSON.parse(json) as ToolsetDefinition[]
}

/** parseToolsetFile logged ignored HolmesGPT keys at build time; say it at run time too, once per file. */
function logIgnored(inlined: string): string {
  const definitions = JSON.parse(inlined) as ToolsetDefinition[]
  const ignored = Map.groupBy(
    definitions.flatMap((d) => d.ignored.map((key) => ({ file: d.fileName, key }))),
    (entry) => entry.file,
  )
  for (const [file, entries] of ignored) {
    log.info("toolset file: HolmesGPT keys accepted but not used", { file, keys: entries.map((e) => e.key) })
  }
  return inlined
}
