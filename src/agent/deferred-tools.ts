import { RequestError } from "../errors.ts"
import type { TokenCounter } from "../llm/tokens.ts"
import type { ChatMessage, ToolCall, ToolSchema } from "../llm/types.ts"
import { CORE_TOOL_NAMES } from "../tool/core-names.ts"
import type { Tool } from "../tool/tool.ts"
import {
  heldBackListing,
  queryWords,
  SEARCH_TOOLS,
  type SearchEntry,
  type SearchOutcome,
  scoreTool,
  searchToolSchema,
  type ToolCatalog,
  ToolSearchTool,
} from "./tool-search.ts"

/** Tools never deferred: planning, paging and the search tool itself. */
const CORE_TOOLS = CORE_TOOL_NAMES

/** What deferral did in a run, for the metadata: tools held back now, tools loaded by search. */
export type DeferralReport = { deferred: number; loaded_by_search: string[] }

/** Where the budget comes from, for the refusal when even the core tools do not fit it. */
export type BudgetSource = { contextWindow: number; pct: number }

type Candidate = { schema: ToolSchema; toolset: string; deferFirst: boolean; size: number }

/** The tools a run offers, as the plan reads them (a `RunTools`; a `ToolExecutor` has the same shape). */
export type ToolSource = {
  readonly offeredTools: Readonly<Record<string, Tool>>
  schemas(): ToolSchema[]
}

/**
 * Deferred tools for one run. While the definitions of the offered tools fit in `budget` tokens
 * they are all sent. Past it, the run sends the core tools, the tools it already used and as many
 * others as fit, plus `search_tools`, whose description names what is held back; the tools a search
 * returns are sent from the next step on. Held back first: tools of `deferFirst` toolsets (MCP
 * servers), then the largest definitions. A tool once sent stays for the rest of the run.
 * It plans and never changes the run's tools: the run's `RunTools` adds `search_tools` once
 * `searching` says it is part of the run.
 */
export class DeferredTools implements ToolCatalog {
  /** Tools sent at least once (or called in the history): never held back again. */
  readonly #pinned = new Set<string>()
  readonly #loadedBySearch: string[] = []
  /** Tokens of the definitions search loaded; bounded by the budget. */
  #loadedTokens = 0
  /** Held back, by name, in deferral order. */
  #deferred = new Map<string, SearchEntry>()
  #all: SearchEntry[] = []
  #source: readonly ToolSchema[] | undefined
  #sent: ToolSchema[] = []
  #dirty = true
  #searching = false
  /** The run's tools, as of the last `tools` call: search follows their list. */
  #tools: ToolSource | undefined
  /** Instructions of toolsets left out of the system prompt, handed out once with their first tool. */
  #instructions = new Map<string, string>()
  /** Instructions a search_tools call loaded, by its call id, until its tool message is built. */
  readonly #notes = new Map<string, string>()

  constructor(
    private readonly counter: TokenCounter,
    readonly budget: number,
    private readonly source?: BudgetSource,
  ) {}

  /**
   * The tools to send for the next model call, `search_tools` last once something was held back
   * (then `searching` is true and the run must offer the tool itself).
   */
  tools(run: ToolSource, history: readonly ChatMessage[]): ToolSchema[] {
    this.#pinCalled(history)
    this.#tools = run
    const source = this.#sync(run)
    if (this.#deferred.size > 0) this.#searching = true
    if (this.#dirty) {
      this.#dirty = false
      this.#sent = this.#send(source)
      for (const s of this.#sent) this.#pinned.add(s.function.name)
    }
    return this.#sent
  }

  /** True once something was held back: `search_tools` is part of the run from then on. */
  get searching(): boolean {
    return this.#searching
  }

  /** Toolsets whose offered tools are all held back now (their instructions can wait too). */
  heldBackToolsets(run: ToolSource): Set<string> {
    const sent = new Set<string>()
    const held = new Set<string>()
    for (const tool of Object.values(run.offeredTools)) {
      const toolset = tool.toolset?.name
      if (toolset === undefined) continue
      if (this.#deferred.has(tool.name)) held.add(toolset)
      else sent.add(toolset)
    }
    for (const toolset of sent) held.delete(toolset)
    return held
  }

  /** Instructions missing from the system prompt, by toolset: search returns them with the tools. */
  withheldInstructions(byToolset: ReadonlyMap<string, string>): void {
    this.#instructions = new Map(byToolset)
  }

  /**
   * Follows the run's tool list, which can change at any time (an MCP server's
   * tools/list_changed): a new list is planned again, new schemas of the same tools replace the old.
   */
  #sync(run: ToolSource): ToolSchema[] {
    const offered = run.offeredTools
    // Ours is sent last (see #send); a configured tool of the same name stays until ours shadows it.
    const ours = offered[SEARCH_TOOLS] instanceof ToolSearchTool
    const source = run.schemas().filter((s) => !ours || s.function.name !== SEARCH_TOOLS)
    // A rebuilt list with the same tools (the executor's caches dropped) keeps the plan.
    if (!sameNames(source, this.#source)) this.#plan(source, offered)
    else if (source.some((s, i) => s !== this.#source?.[i])) this.#refresh(source)
    this.#source = source
    return source
  }

  /** Undefined when nothing was ever held back. */
  report(): DeferralReport | undefined {
    if (!this.#searching) return undefined
    return { deferred: this.#deferred.size, loaded_by_search: [...this.#loadedBySearch] }
  }

  search(query: string, limit: number, callId?: string): SearchOutcome {
    // Tools that arrived since this step's plan can be found too.
    if (this.#tools) this.#sync(this.#tools)
    const words = queryWords(query)
    const ranked = this.#all
      .filter((e) => !CORE_TOOLS.has(e.schema.function.name))
      .map((entry) => ({ entry, score: scoreTool(entry, words) }))
      .filter((r) => r.score > 0)
      .sort(
        (a, b) =>
          b.score - a.score || a.entry.schema.function.name.localeCompare(b.entry.schema.function.name),
      )
      .slice(0, limit)
    const outcome: SearchOutcome = { found: [], already: [], skipped: [] }
    const notes: string[] = []
    for (const { entry } of ranked) {
      const name = entry.schema.function.name
      if (!this.#deferred.has(name)) {
        outcome.already.push(name)
        continue
      }
      // What search loads is bounded too: at most another budget's worth, so the definitions
      // never crowd out the conversation (the model works with what it has, or the run ends).
      const size = this.counter.countTools([entry.schema])
      if (this.#loadedTokens + size > this.budget) {
        outcome.skipped.push(name)
        continue
      }
      this.#loadedTokens += size
      this.#deferred.delete(name)
      outcome.found.push(entry)
      const note = this.#takeInstructions(entry.toolset)
      if (note !== undefined) notes.push(note)
      this.#pinned.add(name)
      this.#loadedBySearch.push(name)
      this.#dirty = true
    }
    if (callId !== undefined && notes.length > 0) this.#notes.set(callId, notes.join("\n\n"))
    return outcome
  }

  /**
   * Trusted text the loop puts before this call's tool message, outside the fence that marks tool
   * output as data: the instructions of the toolsets a search loaded, or of the toolset of a
   * held-back tool called by name, each once per run.
   */
  instructionsFor(call: ToolCall): string | undefined {
    const note = this.#notes.get(call.id)
    if (note !== undefined) {
      this.#notes.delete(call.id)
      return note
    }
    const entry = this.#all.find((e) => e.schema.function.name === call.function.name)
    return entry ? this.#takeInstructions(entry.toolset) : undefined
  }

  #takeInstructions(toolset: string): string | undefined {
    const text = this.#instructions.get(toolset)
    if (text === undefined) return undefined
    this.#instructions.delete(toolset)
    return `Instructions for the ${toolset} toolset (from dupin's configuration; they apply to its tools):\n${text}`
  }

  summary(): string {
    if (this.#deferred.size === 0) return "Every tool is already available."
    return `Tools that can be loaded: ${heldBackListing(this.#deferred, true)}.`
  }

  #pinCalled(history: readonly ChatMessage[]): void {
    for (const m of history) {
      if (m.role !== "assistant") continue
      for (const call of m.tool_calls ?? []) {
        const name = call.function.name
        if (this.#pinned.has(name)) continue
        this.#pinned.add(name)
        if (this.#deferred.delete(name)) this.#dirty = true
      }
    }
  }

  #plan(source: readonly ToolSchema[], offered: Readonly<Record<string, Tool>>): void {
    this.#dirty = true
    const candidates: Candidate[] = source.map((schema) => {
      const toolset = offered[schema.function.name]?.toolset
      return {
        schema,
        toolset: toolset?.name ?? "other",
        deferFirst: toolset?.deferFirst === true,
        size: this.counter.countTools([schema]),
      }
    })
    this.#all = candidates.map(({ schema, toolset }) => ({ schema, toolset }))
    this.#deferred = new Map()
    let total = candidates.reduce((sum, c) => sum + c.size, 0)
    if (total <= this.budget) return
    this.#checkCoreFits(candidates)
    const order = candidates
      .filter((c) => !CORE_TOOLS.has(c.schema.function.name) && !this.#pinned.has(c.schema.function.name))
      .sort((a, b) => Number(b.deferFirst) - Number(a.deferFirst) || b.size - a.size)
    // The search tool's own definition counts too; its description grows with what it lists.
    const searchSize = () => this.counter.countTools([this.#searchSchema(false)])
    for (const c of order) {
      if (this.#deferred.size > 0 && total + searchSize() <= this.budget) break
      this.#deferred.set(c.schema.function.name, { schema: c.schema, toolset: c.toolset })
      total -= c.size
    }
  }

  /**
   * Holding tools back only helps if the tools always sent (planning, paging, the search tool)
   * fit the budget; when they do not, no search could ever load a tool: refuse, naming the fix.
   */
  #checkCoreFits(candidates: readonly Candidate[]): void {
    const core = candidates.filter((c) => CORE_TOOLS.has(c.schema.function.name))
    const needed =
      core.reduce((sum, c) => sum + c.size, 0) + this.counter.countTools([searchToolSchema(new Map(), false)])
    if (needed <= this.budget) return
    const names = [...core.map((c) => c.schema.function.name), SEARCH_TOOLS].join(", ")
    const where = this.source
      ? ` (limits.tool_definitions_budget_pct = ${this.source.pct}% of the ${this.source.contextWindow}-token context window)`
      : ""
    const minPct = this.source ? Math.ceil((needed * 100) / this.source.contextWindow) : undefined
    throw new RequestError(
      `The tool definitions budget of ${this.budget} tokens${where} cannot hold the tools that are always sent (${names}: ${needed} tokens), so no other tool could be loaded. To fit: ${minPct !== undefined && minPct <= 100 ? `raise limits.tool_definitions_budget_pct to at least ${minPct}, ` : ""}raise context_window (modelList) if the model allows more or use a model with a larger window, or disable toolsets.`,
    )
  }

  /** Same tools, new schema objects: the search and the next send use the new ones. */
  #refresh(source: readonly ToolSchema[]): void {
    const byName = new Map(source.map((s) => [s.function.name, s]))
    const fresh = (e: SearchEntry): SearchEntry => ({
      ...e,
      schema: byName.get(e.schema.function.name) ?? e.schema,
    })
    this.#all = this.#all.map(fresh)
    this.#deferred = new Map([...this.#deferred].map(([name, e]) => [name, fresh(e)]))
    this.#dirty = true
  }

  /** The schemas to send: the source minus what is held back, plus the search tool. */
  #send(source: readonly ToolSchema[]): ToolSchema[] {
    const kept = source.filter((s) => !this.#deferred.has(s.function.name))
    if (!this.#searching) return kept
    const withNames = [...kept, this.#searchSchema(true)]
    if (this.#deferred.size === 0 || this.counter.countTools(withNames) <= this.budget) return withNames
    return [...kept, this.#searchSchema(false)]
  }

  #searchSchema(names: boolean): ToolSchema {
    return searchToolSchema(this.#deferred, names)
  }
}

/** Tokens the enabled tools' definitions may take before tools are deferred. */
export function toolDefinitionsBudget(contextWindow: number, pct: number): number {
  return Math.max(1, Math.floor((contextWindow * pct) / 100))
}

function sameNames(a: readonly ToolSchema[], b: readonly ToolSchema[] | undefined): boolean {
  if (!b || a.length !== b.length) return false
  return a.every((s, i) => s.function.name === b[i]?.function.name)
}
