import type { ChatModel } from "../../llm/types.ts"
import type { Toolset } from "../../tool/toolset.ts"

/** The one line an interactive session starts with: what answers, what cannot, where help is. */
export function banner(model: ChatModel, toolsets: readonly Toolset[]): string {
  const parts = [`dupin · ${model.info.id} · ${compactTokens(model.info.contextWindow)} context`]
  const failed = toolsets.filter((t) => t.status === "failed")
  if (failed.length > 0)
    parts.push(`failed: ${failed.map((t) => `${t.name} (${oneLine(t.error)})`).join(", ")}`)
  parts.push("/help for commands")
  return `${parts.join(" · ")}\n`
}

/**
 * One line, before the first question, naming the toolsets that failed their prerequisites
 * (kubectl missing), so the user knows what the answer cannot look at. Whatever the question's
 * words: "why is checkout-api crashlooping?" needs the cluster without saying "pod".
 * Undefined when every toolset loaded.
 */
export function unavailableNotice(toolsets: readonly Toolset[]): string | undefined {
  const failed = toolsets.filter((t) => t.status === "failed")
  if (failed.length === 0) return undefined
  const first = failed[0] as Toolset
  const names = failed.map((t) => t.name).join(", ")
  const why =
    failed.length > 1
      ? `${first.name}: ${oneLine(first.error)}; dupin toolsets lists all`
      : oneLine(first.error)
  return `note: ${names} ${failed.length > 1 ? "are" : "is"} not available (${why}), so this answer cannot use ${failed.length > 1 ? "them" : "it"}.\n`
}

/** 128000 → "128k", 1047576 → "1M": the banner must fit one line. */
function compactTokens(n: number): string {
  if (n >= 1_000_000) return `${Number((n / 1_000_000).toFixed(1))}M`
  if (n >= 1_000) return `${Math.round(n / 1_000)}k`
  return String(n)
}

function oneLine(text: string | undefined): string {
  const line = (text ?? "prerequisites failed").split("\n")[0] as string
  return line.length > 100 ? `${line.slice(0, 100)}…` : line
}
