/**
 * The MCP toolset kind: each `mcp_servers:` entry (config file, then custom toolset files, in
 * order) becomes a `ToolsetFactory` that `assembleToolsets` builds like any code toolset, so
 * `toolsets.<name>.enabled` and the command-line switches apply to it too.
 */
import { Type } from "@sinclair/typebox"
import type { Env } from "../../config/env.ts"
import { ConfigError } from "../../errors.ts"
import type { Toolset } from "../../tool/toolset.ts"
import type { ToolsetFactory } from "../kind.ts"
import { type McpServerSpec, parseMcpServers } from "./schema.ts"
import { McpToolset } from "./toolset.ts"

export { runningChildren } from "./children.ts"
export { type McpServerSpec, parseMcpServer, parseMcpServers } from "./schema.ts"
export { McpToolset } from "./toolset.ts"

/** An MCP toolset's `config` is its server settings, kept out of `toolset.config` (headers hold tokens). */
const NoConfig = Type.Record(Type.String(), Type.Unknown())

const live = new Set<McpToolset>()

/** One `mcp_servers:` map as it was read, with the file that names it in messages. */
export type McpServerSource = { file: string; servers: unknown }

/**
 * Factories for every configured server. A name given twice (two files, or a server named like a
 * built-in toolset) is an error naming both places.
 */
export function mcpToolsetFactories(
  sources: readonly McpServerSource[],
  env: Env,
  reserved: ReadonlySet<string>,
  assembled: () => readonly Toolset[],
): ToolsetFactory[] {
  const specs: Array<McpServerSpec & { file: string }> = []
  for (const source of sources) {
    for (const spec of parseMcpServers(source.servers, source.file, env)) {
      const twin = specs.find((s) => s.name === spec.name)
      if (twin) {
        throw new ConfigError(
          `${source.file}: mcp_servers.${spec.name}: already defined in ${twin.file}; give one of them another name`,
          source.file,
        )
      }
      if (reserved.has(spec.name)) {
        throw new ConfigError(
          `${source.file}: mcp_servers.${spec.name}: a toolset named ${spec.name} already exists; give the server another name`,
          source.file,
        )
      }
      specs.push({ ...spec, file: source.file })
    }
  }
  return specs.map((spec) => ({
    name: spec.name,
    configSchema: NoConfig,
    create(settings, context) {
      let toolset: McpToolset | undefined
      const earlier = () => {
        const all = assembled()
        const index = toolset ? all.indexOf(toolset) : -1
        return index < 0 ? all : all.slice(0, index)
      }
      const others = () =>
        assembled().filter((t): t is McpToolset => t instanceof McpToolset && t !== toolset)
      toolset = new McpToolset({
        spec,
        enabled: settings.enabled ?? spec.enabled,
        env: context.env,
        earlier,
        others,
      })
      live.add(toolset)
      return toolset
    },
  }))
}

/** Stops every MCP server dupin started (stdio processes end, HTTP sessions close). */
export async function stopMcpServers(): Promise<void> {
  const all = [...live]
  live.clear()
  await Promise.all(all.map((t) => t.connection.close()))
}
