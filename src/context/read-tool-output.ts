import type { TokenCounter } from "../llm/tokens.ts"
import { READ_TOOL_OUTPUT } from "../tool/core-names.ts"
import { ToolParameter } from "../tool/parameter.ts"
import { StructuredToolResult, ToolResultStatus } from "../tool/result.ts"
import { Tool, type ToolContext } from "../tool/tool.ts"
import { Toolset } from "../tool/toolset.ts"
import { type Found, grepText, readLines } from "./output-pager.ts"
import type { OutputStore } from "./output-store.ts"
import { MATCH_MAX_CHARS } from "./search-pattern.ts"
import { runSearch } from "./search-runner.ts"

export { READ_TOOL_OUTPUT }

const DEFAULT_LINES = 200
const MAX_LINES = 2_000
const MAX_CONTEXT_LINES = 20
const MAX_MATCHES = 500
/** Tokens left for the status line and the footer the loop adds around a result. */
const FRAME_TOKENS = 64
/** A search stops after this long and says where: the model can narrow it or read a range. */
const SEARCH_BUDGET_MS = 5_000

/**
 * Pages through, or searches, the full output of a tool result that was truncated earlier in this
 * request. It exists only inside a run (it reads that run's OutputStore) and sizes each page to
 * the per-result budget, so a page is normally never truncated itself.
 */
export class ReadToolOutputTool extends Tool {
  constructor(
    private readonly store: OutputStore,
    private readonly counter: TokenCounter,
    private readonly budget: number,
  ) {
    super({
      name: READ_TOOL_OUTPUT,
      description:
        "Read the full output of a tool call whose result was truncated ([TRUNCATED]) in this conversation turn. " +
        "Give start_line/max_lines to read a range of lines, or pattern (a JavaScript regular expression) to list " +
        "matching lines with their line numbers and context.",
      parameters: {
        tool_call_id: new ToolParameter({
          type: "string",
          description: "tool_call_id of the truncated result",
        }),
        start_line: new ToolParameter({
          type: "integer",
          required: false,
          description: "first line to read (1-based)",
        }),
        max_lines: new ToolParameter({
          type: "integer",
          required: false,
          description: `lines to read (default ${DEFAULT_LINES}, at most ${MAX_LINES})`,
        }),
        pattern: new ToolParameter({
          type: "string",
          required: false,
          description: "regular expression to search for instead of reading a range",
        }),
        ignore_case: new ToolParameter({
          type: "boolean",
          required: false,
          description: "case-insensitive search",
        }),
        context_lines: new ToolParameter({
          type: "integer",
          required: false,
          description: "lines of context around each match (default 2)",
        }),
        max_matches: new ToolParameter({ type: "integer", required: false, description: "default 50" }),
      },
    })
  }

  protected async invoke(
    params: Record<string, unknown>,
    context: ToolContext,
  ): Promise<StructuredToolResult> {
    const id = String(params.tool_call_id)
    const text = await this.store.get(id)
    if (text === undefined) {
      return StructuredToolResult.error(
        `No truncated output with tool_call_id "${id}" in this request. Full outputs are kept only during the request that produced them; call the original tool again if you need it.`,
      )
    }
    const source = `${this.store.toolName(id) ?? "tool"} (tool_call_id ${id})`
    let render: (maxChars: number) => { text: string; status: ToolResultStatus }
    if (typeof params.pattern === "string" && params.pattern !== "") {
      const pattern = params.pattern
      // Searched once; only the rendering shrinks below when the page is over budget.
      const reply = await runSearch(
        {
          text,
          pattern,
          ignoreCase: params.ignore_case === true,
          maxMatches: Math.min(MAX_MATCHES, Math.max(1, asInt(params.max_matches, 50))),
          budgetMs: SEARCH_BUDGET_MS,
        },
        context.signal,
      )
      if (reply.kind === "refused") return StructuredToolResult.error(reply.message)
      const { found, window } = reply
      const searched = { pattern, found, window }
      render = (maxChars) => this.search(text, source, params, searched, maxChars)
    } else {
      render = (maxChars) => this.page(text, source, params, maxChars)
    }
    const limit = Math.max(1, this.budget - FRAME_TOKENS)
    // Characters per token vary (hex ids, CJK): render, count, and shrink until it fits.
    let maxChars = limit * 4
    let out = render(maxChars)
    for (let i = 0; i < 4; i++) {
      const tokens = this.counter.countText(out.text)
      if (tokens <= limit) break
      maxChars = Math.floor((maxChars * limit * 0.9) / tokens)
      out = render(maxChars)
    }
    if (out.status === ToolResultStatus.ERROR) return StructuredToolResult.error(out.text)
    return new StructuredToolResult({ status: out.status, data: out.text })
  }

  private page(
    text: string,
    source: string,
    params: Record<string, unknown>,
    maxChars: number,
  ): { text: string; status: ToolResultStatus } {
    const start = Math.max(1, asInt(params.start_line, 1))
    const maxLines = Math.min(MAX_LINES, Math.max(1, asInt(params.max_lines, DEFAULT_LINES)))
    const page = readLines(text, start, maxLines, maxChars)
    if (page.lines.length === 0) {
      return {
        text: `${source} has ${page.total} lines; start_line ${start} is past the end.`,
        status: ToolResultStatus.NO_DATA,
      }
    }
    const last = start + page.lines.length - 1
    const footer =
      last < page.total
        ? `[${page.total - last} more lines: call ${READ_TOOL_OUTPUT} with start_line=${last + 1}]`
        : "[End of output]"
    return {
      text: `Lines ${start}-${last} of ${page.total} of the output of ${source}:\n${page.lines.join("\n")}\n${footer}`,
      status: ToolResultStatus.SUCCESS,
    }
  }

  private search(
    text: string,
    source: string,
    params: Record<string, unknown>,
    searched: { pattern: string; found: Found; window: number },
    maxChars: number,
  ): { text: string; status: ToolResultStatus } {
    const { pattern, found, window } = searched
    const notes: string[] = []
    if (window < MATCH_MAX_CHARS)
      notes.push(`[The pattern is large: only the first ${window} characters of each line were searched]`)
    if (found.stoppedAt !== undefined)
      notes.push(
        `[Search stopped after ${SEARCH_BUDGET_MS / 1000} s at line ${found.stoppedAt}: narrow the pattern or read a line range]`,
      )
    const tail = notes.length > 0 ? `\n${notes.join("\n")}` : ""
    if (found.lines.length === 0)
      return {
        text: `No line of the output of ${source} matches /${pattern}/.${tail}`,
        status: ToolResultStatus.NO_DATA,
      }
    const result = grepText(text, found.lines, {
      contextLines: Math.min(MAX_CONTEXT_LINES, Math.max(0, asInt(params.context_lines, 2))),
      maxChars,
    })
    if (found.more || result.cut)
      notes.unshift("[More matches left out: narrow the pattern or read a line range]")
    const more = notes.length > 0 ? `\n${notes.join("\n")}` : ""
    return {
      text: `${result.matches} matching lines (n: match, n- context) in the output of ${source}:\n${result.lines.join("\n")}${more}`,
      status: ToolResultStatus.SUCCESS,
    }
  }
}

function asInt(value: unknown, fallback: number): number {
  return typeof value === "number" && Number.isFinite(value) ? Math.trunc(value) : fallback
}

/** The per-run toolset that offers read_tool_output; no prerequisites. */
export function pagingToolset(store: OutputStore, counter: TokenCounter, budget: number): Toolset {
  return new Toolset({
    name: "dupin/tool-output",
    description: "Paging through truncated tool outputs of this request",
    tools: [new ReadToolOutputTool(store, counter, budget)],
  })
}
