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

/** Words that mean a question is about Kubernetes. */
const KUBERNETES = /\b(pods?|kubectl|k8s|kubernetes|namespaces?)\b/i

/**
 * One line when a question needs a toolset that failed its prerequisites (kubectl missing), so
 * the user knows why the answer cannot look at the cluster. Undefined when nothing applies.
 */
export function unavailableNotice(question: string, toolsets: readonly Toolset[]): string | undefined {
  if (!KUBERNETES.test(question)) return undefined
  const failed = toolsets.filter((t) => t.status === "failed" && t.name.startsWith("kubernetes/"))
  if (failed.length === 0) return undefined
  const first = failed[0] as Toolset
  const names = failed.map((t) => t.name).join(", ")
  return `note: ${names} ${failed.length > 1 ? "are" : "is"} not available (${oneLine(first.error)}), so this answer cannot look at the cluster.\n`
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
