import { type ContextSettings, toolResultBudget } from "../context/limits.ts"
import { OutputStore } from "../context/output-store.ts"
import { pagingToolset } from "../context/read-tool-output.ts"
import type { Truncation } from "../context/report.ts"
import type { TokenCounter } from "../llm/tokens.ts"
import type { ChatMessage, ToolCall, ToolMessage, ToolSchema } from "../llm/types.ts"
import type { RequestQuota } from "../tool/containment/request-quota.ts"
import { type PreparedCall, ToolExecutor } from "../tool/executor.ts"
import { newFenceId } from "../tool/fence.ts"
import type { StructuredToolResult } from "../tool/result.ts"
import type { Tool, ToolLimits } from "../tool/tool.ts"
import type { Toolset } from "../tool/toolset.ts"
import {
  type BudgetSource,
  type DeferralReport,
  DeferredTools,
  toolDefinitionsBudget,
} from "./deferred-tools.ts"
import { fitToolsetInstructions } from "./prompt/held-back-instructions.ts"
import { buildToolMessage } from "./tool-message.ts"
import { toolSearchToolset } from "./tool-search.ts"

export type RunToolsInit = {
  counter: TokenCounter
  /** Tokens one tool result may take; a result cut to it is kept for `read_tool_output`. */
  resultBudget: number
  /** Tokens the offered tools' definitions may take before tools are held back for `search_tools`. */
  definitionsBudget: number
  /** Where `definitionsBudget` comes from, for the refusal when even the core tools do not fit. */
  budgetSource?: BudgetSource
  /** Tools the client executes (frontend tools): sent after dupin's; a call to one waits for the client. */
  frontend?: readonly ToolSchema[]
}

/**
 * The tools of one run, over the engine's shared executor, which no run changes: what the model is
 * offered each step (past the definitions budget, the deferral plan with `search_tools`, then the
 * client's frontend tools), the run's own tools (`read_tool_output` once an output was cut,
 * `search_tools` once a tool was held back), which ones search loaded, lookup by name for the calls,
 * and the store of cut outputs `read_tool_output` pages (`dispose` removes it). Made once per run.
 */
export class RunTools {
  /** Full text of the results cut to fit, by call id, until the run ends. */
  readonly store = new OutputStore()
  /** What is held back past the definitions budget and what search loaded. */
  readonly deferral: DeferredTools
  readonly #shared: ToolExecutor
  readonly #counter: TokenCounter
  readonly #resultBudget: number
  readonly #frontend: readonly ToolSchema[]
  readonly #frontendNames: ReadonlySet<string>
  /** The run's own toolsets, the latest first: they come before the configured ones. */
  readonly #own: Toolset[] = []
  /**
   * What the run's calls resolve against: the shared executor until the run adds a tool, then an
   * executor of this run's own over its toolsets followed by the shared ones.
   */
  #view: ToolExecutor
  #paging = false
  #searching = false

  constructor(shared: ToolExecutor, init: RunToolsInit) {
    this.#shared = shared
    this.#view = shared
    this.#counter = init.counter
    this.#resultBudget = init.resultBudget
    this.deferral = new DeferredTools(init.counter, init.definitionsBudget, init.budgetSource)
    this.#frontend = init.frontend ?? []
    this.#frontendNames = new Set(this.#frontend.map((t) => t.function.name))
  }

  /** A run's tools for a model's window and the context settings (the two budgets). */
  static forWindow(
    shared: ToolExecutor,
    init: {
      contextWindow: number
      settings: ContextSettings
      counter: TokenCounter
      frontend?: readonly ToolSchema[]
    },
  ): RunTools {
    const { contextWindow, settings } = init
    return new RunTools(shared, {
      counter: init.counter,
      resultBudget: toolResultBudget(contextWindow, settings),
      definitionsBudget: toolDefinitionsBudget(contextWindow, settings.toolDefinitionsPct),
      budgetSource: { contextWindow, pct: settings.toolDefinitionsPct },
      ...(init.frontend ? { frontend: init.frontend } : {}),
    })
  }

  /**
   * The tools to send for the next model call. `read_tool_output` joins once an output was kept
   * for paging and `search_tools` once a tool is held back; each stays for the rest of the run.
   */
  async offer(history: readonly ChatMessage[], signal?: AbortSignal): Promise<ToolSchema[]> {
    if (!this.#paging && this.store.size > 0) {
      this.#paging = true
      await this.add(pagingToolset(this.store, this.#counter, this.#resultBudget), signal)
    }
    const sent = this.deferral.tools(this, history)
    if (this.deferral.searching && !this.#searching) {
      this.#searching = true
      await this.add(toolSearchToolset(this.deferral), signal)
    }
    return this.#frontend.length > 0 ? [...sent, ...this.#frontend] : sent
  }

  /**
   * Once per run, at its start (the prompt stays byte-stable after): the system prompt keeps only
   * the heading of a toolset whose tools are all held back; search hands out its instructions.
   */
  holdBackInstructions(history: ChatMessage[]): void {
    const held = this.deferral.heldBackToolsets(this)
    this.deferral.withheldInstructions(fitToolsetInstructions(history, this.#view.toolsets, held))
  }

  /**
   * Adds a run-scoped toolset, first, so a configured tool of the same name cannot shadow the one
   * the truncation notes or search results point to. The shared executor never sees it.
   */
  async add(toolset: Toolset, signal?: AbortSignal): Promise<void> {
    const { env, prerequisiteTimeout } = this.#shared.options
    await toolset.checkPrerequisites({
      env,
      signal: signal ?? new AbortController().signal,
      timeoutSeconds: prerequisiteTimeout ?? 10,
    })
    this.#own.unshift(toolset)
    this.#view = new ToolExecutor([...this.#own, ...this.#shared.toolsets], this.#shared.options)
  }

  /** Tools the model may call in this run, by name (the run's own first). */
  get offeredTools(): Readonly<Record<string, Tool>> {
    return this.#view.offeredTools
  }

  /** Schemas of the offered tools; the shared executor's own array until the run adds a tool. */
  schemas(): ToolSchema[] {
    return this.#view.schemas()
  }

  get limits(): ToolLimits {
    return this.#shared.options.limits
  }

  /** A call to a tool the client executes (and no dupin tool of that name): it waits for the client. */
  isFrontend(name: string): boolean {
    return this.#frontendNames.has(name)
  }

  /** Resolves a model's call against this run's tools. Never throws. */
  prepare(call: ToolCall): PreparedCall {
    return this.#view.prepare(call)
  }

  describe(prepared: PreparedCall): string {
    return this.#shared.describe(prepared)
  }

  run(
    prepared: PreparedCall,
    signal: AbortSignal,
    approved: boolean,
    outputMaxBytes?: number,
    quota?: RequestQuota,
  ): Promise<StructuredToolResult> {
    return this.#shared.run(prepared, signal, approved, outputMaxBytes, quota)
  }

  /**
   * The `tool` message for a finished call (tool-message.ts), after the instructions a held-back
   * toolset brings with its first tool; a cut result's full text is kept for `read_tool_output`.
   */
  async toolMessage(
    call: ToolCall,
    result: StructuredToolResult,
    signal?: AbortSignal,
  ): Promise<{ message: ToolMessage; truncation?: Truncation }> {
    const note = this.deferral.instructionsFor(call)
    const built = await buildToolMessage(
      { call, result, note, fenceId: newFenceId(), budget: this.#resultBudget, counter: this.#counter },
      signal,
    )
    if (built.spilled)
      this.store.putSpilled(call.id, call.function.name, built.spilled.head, built.spilled.output)
    else {
      // A long output on disk that the message holds whole after all: nothing to page from it.
      result.spill?.remove()
      if (built.full !== undefined) this.store.put(call.id, call.function.name, built.full)
    }
    return built.truncation
      ? { message: built.message, truncation: built.truncation }
      : { message: built.message }
  }

  /** What deferral did in this run, for the metadata; undefined when nothing was held back. */
  report(): DeferralReport | undefined {
    return this.deferral.report()
  }

  /** Removes the kept outputs (spill files), also when the run stops early or throws. */
  async dispose(): Promise<void> {
    await this.store.dispose()
  }
}
