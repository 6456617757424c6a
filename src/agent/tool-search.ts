import type { ToolSchema } from "../llm/types.ts"
/** The tool search tool's name (no spec or contract names one; `search_tools` reads as what it does). */
import { SEARCH_TOOLS } from "../tool/core-names.ts"
import { ToolParameter } from "../tool/parameter.ts"
import { StructuredToolResult, ToolResultStatus } from "../tool/result.ts"
import { Tool, type ToolContext } from "../tool/tool.ts"
import { Toolset } from "../tool/toolset.ts"

export { SEARCH_TOOLS }

export const DEFAULT_SEARCH_RESULTS = 3
export const MAX_SEARCH_RESULTS = 10
/** Characters of a query that are searched; the rest is ignored (the work stays bounded). */
export const MAX_QUERY_CHARS = 1000
/** Characters of a query a result echoes back (a huge query must not be copied into the history). */
const ECHOED_QUERY_CHARS = 80

/** A deferred tool as the search ranks it: its definition and the toolset it comes from. */
export type SearchEntry = { schema: ToolSchema; toolset: string }

/**
 * What a search did: the tools it found (now loaded), those already loaded, and those it could not
 * load because the tools loaded by search reached their bound.
 */
export type SearchOutcome = { found: SearchEntry[]; already: string[]; skipped: string[] }

/** Where the search tool looks: the run's deferred tools (see DeferredTools). */
export interface ToolCatalog {
  /** `callId`: the search_tools call, for what the catalog hands out with its result. */
  search(query: string, limit: number, callId?: string): SearchOutcome
  /** One line naming what can be searched (for results that found nothing). */
  summary(): string
}

const PARAMETERS = {
  query: new ToolParameter({
    type: "string",
    description: "words to look for in tool names, descriptions and parameters, or exact tool names",
  }),
  limit: new ToolParameter({
    type: "integer",
    required: false,
    description: `most tools to load (default ${DEFAULT_SEARCH_RESULTS}, at most ${MAX_SEARCH_RESULTS})`,
  }),
}

/**
 * Finds tools that are not sent up front (deferred because their definitions would crowd a small
 * window) and loads them: the ones it returns are callable from the model's next step on, for the
 * rest of the run. Its description (built per run by DeferredTools) says what can be found.
 */
export class ToolSearchTool extends Tool {
  constructor(private readonly catalog: ToolCatalog) {
    super({
      name: SEARCH_TOOLS,
      description: "Find and load more tools by name or topic.",
      parameters: PARAMETERS,
    })
  }

  protected async invoke(
    params: Record<string, unknown>,
    context: ToolContext,
  ): Promise<StructuredToolResult> {
    const query = String(params.query ?? "")
      .slice(0, MAX_QUERY_CHARS)
      .trim()
    const raw = typeof params.limit === "number" ? Math.trunc(params.limit) : DEFAULT_SEARCH_RESULTS
    const limit = Math.min(MAX_SEARCH_RESULTS, Math.max(1, raw))
    const { found, already, skipped } = this.catalog.search(query, limit, context.toolCallId)
    const lines: string[] = []
    if (found.length > 0) {
      lines.push(`Loaded ${found.length} tool(s); call them from your next step:`)
      for (const entry of found) lines.push(signature(entry))
    }
    if (already.length > 0) lines.push(`Already available: ${already.join(", ")}.`)
    if (skipped.length > 0)
      lines.push(
        `Not loaded, the context window has no room for more tool definitions (limits.tool_definitions_budget_pct): ${skipped.join(", ")}. Work with the tools you have.`,
      )
    if (lines.length === 0) {
      return new StructuredToolResult({
        status: ToolResultStatus.NO_DATA,
        data: `${query === "" ? "An empty query matches no tool" : `No tool matches "${echoed(query)}"`}. ${this.catalog.summary()}`,
        params,
      })
    }
    return new StructuredToolResult({ status: ToolResultStatus.SUCCESS, data: lines.join("\n"), params })
  }
}

function echoed(query: string): string {
  return query.length <= ECHOED_QUERY_CHARS ? query : `${query.slice(0, ECHOED_QUERY_CHARS)}…`
}

/** A definition in one line: `- name(param: type, optional?: type) [toolset]: description`. */
export function signature(entry: SearchEntry): string {
  const { name, description, parameters } = entry.schema.function
  const props = (parameters.properties ?? {}) as Record<string, { type?: unknown; enum?: unknown[] }>
  const required = new Set(Array.isArray(parameters.required) ? (parameters.required as string[]) : [])
  const args = Object.entries(props).map(([key, spec]) => {
    const type = Array.isArray(spec.enum) ? spec.enum.map((v) => JSON.stringify(v)).join("|") : spec.type
    return `${key}${required.has(key) ? "" : "?"}: ${String(type ?? "any")}`
  })
  return `- ${name}(${args.join(", ")}) [${entry.toolset}]: ${description.split("\n")[0]?.trim() ?? ""}`
}

/**
 * Scores a tool against the query's words: an exact name counts most, then a word in the name,
 * the toolset's name, the description, and parameter names and descriptions. Zero: no match.
 */
export function scoreTool(entry: SearchEntry, words: readonly string[]): number {
  const fn = entry.schema.function
  const name = fn.name.toLowerCase()
  const description = fn.description.toLowerCase()
  const toolset = entry.toolset.toLowerCase()
  const params = JSON.stringify(fn.parameters.properties ?? {}).toLowerCase()
  let score = 0
  for (const word of words) {
    if (word === name) score += 100
    else if (name.includes(word)) score += 10
    if (toolset.includes(word)) score += 4
    if (description.includes(word)) score += 3
    if (params.includes(word)) score += 1
  }
  return score
}

/** The query's words: lower case, split on anything but letters, digits, `_`, `-`, `/`, `.`. */
export function queryWords(query: string): string[] {
  const words = query
    .slice(0, MAX_QUERY_CHARS)
    .toLowerCase()
    .split(/[^\p{L}\p{N}_\-/.]+/u)
    .filter((w) => w.length > 1)
  return [...new Set(words)].slice(0, 32)
}

/** The per-run toolset that holds the search tool; no prerequisites. */
export function toolSearchToolset(catalog: ToolCatalog): Toolset {
  return new Toolset({
    name: "dupin/tool-search",
    description: "Finds and loads tools that were not sent up front",
    tools: [new ToolSearchTool(catalog)],
  })
}

/** `search_tools` as sent: its description names what it can load (see heldBackListing). */
export function searchToolSchema(held: ReadonlyMap<string, SearchEntry>, names: boolean): ToolSchema {
  const more =
    held.size === 0
      ? "Every tool is loaded now."
      : `${held.size} more tools are not loaded yet, to save context: ${heldBackListing(held, names)}.`
  return {
    type: "function",
    function: {
      name: SEARCH_TOOLS,
      description: `Find and load tools by name or by words about what you need; the tools it returns can be called from your next step. ${more}`,
      parameters: {
        type: "object",
        properties: {
          query: { type: "string", description: "tool names, or words about the task (e.g. 'pod logs')" },
          limit: {
            type: "integer",
            description: `most tools to load (default ${DEFAULT_SEARCH_RESULTS}, at most ${MAX_SEARCH_RESULTS})`,
          },
        },
        required: ["query"],
      },
    },
  }
}

/** Held-back tools by toolset: `set: a, b; other: c` with names, else `set (2), other (1)`. */
export function heldBackListing(held: ReadonlyMap<string, SearchEntry>, names: boolean): string {
  const groups = new Map<string, string[]>()
  for (const [name, entry] of held) {
    const group = groups.get(entry.toolset) ?? []
    group.push(name)
    groups.set(entry.toolset, group)
  }
  return [...groups]
    .map(([toolset, tools]) => (names ? `${toolset}: ${tools.join(", ")}` : `${toolset} (${tools.length})`))
    .join(names ? "; " : ", ")
}
