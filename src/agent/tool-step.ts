import type { ToolCall, ToolMessage } from "../llm/types.ts"
import { newRequestQuota } from "../tool/containment/index.ts"
import type { RequestQuota } from "../tool/containment/request-quota.ts"
import type { PreparedCall } from "../tool/executor.ts"
import { StructuredToolResult, ToolResultStatus } from "../tool/result.ts"
import { engineLimits, type ToolLimits } from "../tool/tool.ts"
import { type ApprovalMode, approvalOffText, deniedText, normalizeDecision } from "./approval.ts"
import type { EngineEvent, PendingApproval, PendingFrontendToolCall } from "./events.ts"
import { limiter } from "./limiter.ts"
import { echoResult, OutputBudget } from "./output-budget.ts"
import type { RunTools } from "./run-tools.ts"

export type FinishedCall = { prepared: PreparedCall; description: string; result: StructuredToolResult }

/** Everything the step needs from the run: its tools, turning a result into a history message, and the seen-call set. */
export type StepContext = {
  /** The run's tools: lookup by name, execution, which calls the client runs. */
  tools: RunTools
  approval: ApprovalMode
  signal: AbortSignal
  /** Calls already made in this request (`name` + canonical arguments). */
  seen: Set<string>
  /**
   * Builds the `tool` message (truncation, accounting) for a finished call; async, as it cuts a
   * result to its budget a slice at a time (tool output can be 10 MB).
   */
  toMessage: (finished: FinishedCall) => Promise<ToolMessage>
  /** Tool output the request may still keep (limits.request_tool_output_max_bytes). */
  output: OutputBudget
  /** The run's hook on each call the model asks for (AgentOptions.onToolCall). */
  onToolCall?: (call: ToolCall) => void
  /** The request's share of tool-process slots and memory. */
  quota?: RequestQuota
  /** Frontend tools that do not pause (FrontendTools.noop): the model reads this text instead. */
  frontendNoop?: ReadonlyMap<string, string>
}

/** The per-request parts of a StepContext, from the tool limits. */
export function stepBounds(limits: ToolLimits): { output: OutputBudget; quota: RequestQuota } {
  return {
    output: new OutputBudget(engineLimits(limits).requestOutputMaxBytes),
    // One request's share of the tool processes and their memory (R6, R13).
    quota: newRequestQuota(),
  }
}

/**
 * Runs prepared calls through the run's tools, at most `limits.maxParallelCalls` at once, each read
 * capped by what the request's output budget has left and counted against it when it finishes.
 */
export function boundedRunner(
  ctx: StepContext,
): (p: PreparedCall, approved: boolean) => Promise<StructuredToolResult> {
  const limits = engineLimits(ctx.tools.limits)
  const slot = limiter(Math.max(1, limits.maxParallelCalls))
  return (p, approved) =>
    slot(async () => {
      const cap = ctx.output.readCap(limits.outputMaxBytes)
      const result = await ctx.tools.run(p, ctx.signal, approved, cap, ctx.quota)
      return ctx.output.keep(result, cap < limits.outputMaxBytes ? cap : undefined)
    })
}

export type StepOutcome = {
  /** Tool messages in the order the model asked for the calls; pending calls have none. */
  messages: ToolMessage[]
  finished: FinishedCall[]
  pending: PendingApproval[]
  /** Calls to frontend tools, left for the client to execute. */
  frontend: PendingFrontendToolCall[]
}

/** Identity of a call within a request: same tool, same arguments (key order ignored). */
export function callKey(name: string, params: Record<string, unknown>): string {
  return `${name}\u0000${canonicalJson(params)}`
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`
  if (value && typeof value === "object") {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`
  }
  return JSON.stringify(value) ?? "null"
}

/**
 * Runs one step's tool calls concurrently. Events: every `start_tool_calling` first, then each
 * `tool_calling_result` as its tool finishes; calls left waiting for approval come last.
 */
export async function* runToolCalls(
  calls: ToolCall[],
  ctx: StepContext,
): AsyncGenerator<EngineEvent, StepOutcome> {
  const prepared = calls.map((call) => refuseRepeats(ctx.tools.prepare(call), ctx.seen))
  for (const p of prepared) {
    ctx.onToolCall?.(p.call)
    yield { event: "start_tool_calling", data: { tool_name: p.call.function.name, id: p.call.id } }
  }

  const finishedById = new Map<string, FinishedCall>()
  const pending: PendingApproval[] = []
  const frontend: PendingFrontendToolCall[] = []
  const running = new Map<string, Promise<{ id: string; outcome: FinishedCall | { error: unknown } }>>()
  const run = boundedRunner(ctx)

  for (const p of prepared) {
    // A dupin tool of the same name wins; faces refuse such frontend tools before the run.
    const description = ctx.tools.describe(p)
    if (!p.tool && ctx.tools.isFrontend(p.call.function.name)) {
      const noop = ctx.frontendNoop?.get(p.call.function.name)
      if (noop === undefined) {
        frontend.push(frontendCall(p.call))
        continue
      }
      const params = parseArguments(p.call.function.arguments)
      const done: FinishedCall = {
        prepared: { ...p, params },
        description,
        result: new StructuredToolResult({ status: ToolResultStatus.SUCCESS, data: noop, params }),
      }
      running.set(p.call.id, Promise.resolve({ id: p.call.id, outcome: done }))
      continue
    }
    if (p.approvalReason && !p.error && ctx.approval.kind === "pause") {
      pending.push({
        tool_call_id: p.call.id,
        tool_name: p.call.function.name,
        description,
        params: p.params,
      })
      continue
    }
    const task = execute(p, description, ctx, run).then(
      (outcome) => ({ id: p.call.id, outcome }),
      (error: unknown) => ({ id: p.call.id, outcome: { error } }),
    )
    running.set(p.call.id, task)
  }

  // Yield results as tools finish; every task is awaited (none left to reject unhandled).
  let failure: unknown
  while (running.size > 0) {
    const { id, outcome } = await Promise.race(running.values())
    running.delete(id)
    if ("error" in outcome) {
      failure ??= outcome.error
      continue
    }
    finishedById.set(id, outcome)
    if (!failure) yield resultEvent(outcome, ctx)
  }
  if (failure) throw failure

  const finished = prepared.flatMap((p) => finishedById.get(p.call.id) ?? [])
  const messages: ToolMessage[] = []
  for (const f of finished) messages.push(await ctx.toMessage(f))
  for (const p of pending) {
    yield {
      event: "tool_calling_result",
      data: {
        tool_call_id: p.tool_call_id,
        role: "tool",
        description: p.description,
        name: p.tool_name,
        result: { status: ToolResultStatus.APPROVAL_REQUIRED, data: null, error: null, params: p.params },
      },
    }
  }
  return { messages, finished, pending, frontend }
}

function frontendCall(call: ToolCall): PendingFrontendToolCall {
  return {
    tool_call_id: call.id,
    tool_name: call.function.name,
    arguments: parseArguments(call.function.arguments),
  }
}

/** A frontend call's arguments as an object, for the client; `{}` when the model wrote no object. */
export function parseArguments(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text.trim() === "" ? "{}" : text)
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {}
  } catch {
    return {}
  }
}

function refuseRepeats(p: PreparedCall, seen: Set<string>): PreparedCall {
  if (p.error || !p.tool) return p
  const key = callKey(p.tool.name, p.params)
  if (seen.has(key)) {
    return {
      ...p,
      error: `${p.tool.name} was already called with exactly these arguments in this conversation turn; its result is above. Use it, or call with different arguments.`,
      approvalReason: undefined,
    }
  }
  seen.add(key)
  return p
}

async function execute(
  p: PreparedCall,
  description: string,
  ctx: StepContext,
  run: ReturnType<typeof boundedRunner>,
): Promise<FinishedCall> {
  if (!p.approvalReason || p.error) {
    return { prepared: p, description, result: await run(p, false) }
  }
  if (ctx.approval.kind !== "callback") {
    return {
      prepared: p,
      description,
      result: StructuredToolResult.error(approvalOffText(p.approvalReason), p.params),
    }
  }
  const decision = normalizeDecision(
    await ctx.approval.callback({
      tool_call_id: p.call.id,
      tool_name: p.call.function.name,
      description,
      params: p.params,
    }),
  )
  if (!decision.approved) {
    return {
      prepared: p,
      description,
      result: StructuredToolResult.error(deniedText(decision.feedback), p.params),
    }
  }
  return { prepared: p, description, result: await run(p, true) }
}

/** The `tool_calling_result` event of a finished call, its output cut for the client. */
export function resultEvent(f: FinishedCall, ctx: StepContext): EngineEvent {
  return {
    event: "tool_calling_result",
    data: {
      tool_call_id: f.prepared.call.id,
      role: "tool",
      description: f.description,
      name: f.prepared.call.function.name,
      result: echoResult(f.result, engineLimits(ctx.tools.limits).echoMaxBytes),
    },
  }
}
