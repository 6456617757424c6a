/**
 * What a finished tool call shows: one ✓/✗ line naming the call with its arguments (parallel
 * calls of one tool are told apart), the most useful line of an error, and the planning tool's
 * list as a checklist.
 */
import { DENIED_TEXT } from "../../agent/approval.ts"
import type { ToolResultObject } from "../../agent/events.ts"
import { terminalSafe } from "../../commands/output.ts"
import { TODO_WRITE } from "../../tool/core-names.ts"
import type { Style } from "../render/style.ts"
import { clip, formatCall } from "./format.ts"

const MAX_ERROR = 200

export function finishedLine(label: string, took: string, result: ToolResultObject, style: Style): string {
  const time = took ? ` ${style.dim(took)}` : ""
  if (result.status === "error") {
    const why = result.error ?? (typeof result.data === "string" ? result.data : "error")
    if (why.startsWith(DENIED_TEXT))
      return `${style.yellow("✗")} ${label}${time} ${style.yellow(clip(why, MAX_ERROR))}`
    return `${style.red("✗")} ${label}${time} ${style.red(clip(usefulErrorLine(why), MAX_ERROR))}`
  }
  const noData = result.status === "no_data" ? style.dim(" (no data)") : ""
  const data = result.data
  const cut = typeof data === "string" && CUT_MARKS.some((m) => data.includes(m))
  return `${style.green("✓")} ${label}${time}${noData}${cut ? style.yellow(" (output truncated)") : ""}`
}

/**
 * What a cut output carries: the read cap of a tool process, the context cap's marker, the echo
 * cap. Only a mark on the line tells the user the answer rests on part of the output.
 */
const CUT_MARKS = ["\n[output cut: ", "[TRUNCATED]", "\n[dupin: output shown up to "]

// klog's header: severity, date, time, thread, file:line] (kubectl, client-go programs).
const KLOG = /^[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d+\s+\d+\s+\S+:\d+\]/
const ERROR_WORD = /\berror\b|\bfailed\b|\bforbidden\b|\bnot found\b|\bdenied\b|\brefused\b/i
const ERROR_LEAD = /^(error|Error from server|fatal|FATAL)\b/

/**
 * The line of an error text worth showing: one that starts like an error (`error: …`, `Error from
 * server (NotFound): …`), else the last line that mentions one outside klog chatter, else the
 * last line that is not klog chatter, else the first.
 */
export function usefulErrorLine(text: string): string {
  const lines = text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "")
  if (lines.length <= 1) return lines[0] ?? text.trim()
  const quiet = lines.filter((l) => !KLOG.test(l) && l !== "Output:")
  const lead = quiet.findLast((l) => ERROR_LEAD.test(l))
  if (lead) return lead
  // dupin's own status line ("Command failed with exit code 1") names the failure, not its cause.
  const cause = quiet.slice(1).findLast((l) => ERROR_WORD.test(l))
  if (cause) return cause
  return quiet.at(-1) ?? lines[0] ?? ""
}

/** How a call is named on its lines: `kubectl_describe(kind=pod, name=web-1)`; a plan by its size. */
export function callLabel(name: string, params: Record<string, unknown>): string {
  if (name === TODO_WRITE && Array.isArray(params.todos)) {
    const n = params.todos.length
    return `TodoWrite(${n} ${n === 1 ? "item" : "items"})`
  }
  return formatCall(name, params)
}

type Todo = { content?: unknown; status?: unknown }
const MARK: Record<string, string> = { completed: "☑", in_progress: "◐", pending: "☐" }

/**
 * The plan the model wrote with TodoWrite, one item a line (terminal-safe, styled); undefined when
 * the call was not one.
 */
export function todoChecklist(
  toolName: string,
  params: Record<string, unknown>,
  style: Style,
): string | undefined {
  if (toolName !== TODO_WRITE || !Array.isArray(params.todos)) return undefined
  const lines = (params.todos as Todo[]).map((todo) => {
    const status = typeof todo.status === "string" ? todo.status : "pending"
    const text = terminalSafe(
      clip(typeof todo.content === "string" ? todo.content : JSON.stringify(todo.content), 120),
    )
    const mark = MARK[status] ?? "☐"
    if (status === "completed") return `  ${style.green(mark)} ${style.dim(text)}`
    if (status === "in_progress") return `  ${style.cyan(mark)} ${style.bold(text)}`
    return `  ${mark} ${text}`
  })
  return lines.join("\n")
}
