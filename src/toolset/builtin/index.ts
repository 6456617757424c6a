/**
 * The default YAML toolsets, imported as text so `bun build --compile` embeds them: the binary
 * reads nothing from the build tree at run time. Add one import and one entry per file.
 */
import linuxHost from "../../../toolsets/linux-host.yaml" with { type: "text" }

export type ToolsetSource = { fileName: string; text: string }

const SOURCES: ToolsetSource[] = [{ fileName: "toolsets/linux-host.yaml", text: linuxHost }]

export function builtinToolsetSources(): ToolsetSource[] {
  return SOURCES
}
