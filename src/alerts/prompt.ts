/**
 * The question an alert becomes (CONTRACT §10): the alert's labels and annotations verbatim, its
 * start time, generator URL and cluster, the matching runbook when the catalog has it, then what
 * dupin is asked to do. Nobody reads the run as it happens, so the instructions say so.
 */
import type { RunbookCatalog, RunbookEntry } from "../runbook/catalog.ts"
import type { AlertInput } from "../store/investigation.ts"

/** Characters of a matched runbook put into the prompt (the model can fetch the rest). */
const MAX_RUNBOOK_CHARS = 20_000

const INSTRUCTIONS = `This alert fired and nobody has looked at it yet. Investigate it now with your tools: find out whether the problem is real and still going on, what is affected, and the most likely cause, with the evidence for it. Nobody is there to answer questions or approve tool calls: a call that needs approval is refused, so use read-only alternatives and, where a change is needed, say which command an operator should run. End with a short summary for the on-call engineer: what is wrong, the cause, and the next step.`

export type AlertPromptInput = {
  alert: AlertInput
  clusterName?: string | undefined
  runbooks?: RunbookCatalog | undefined
}

export function alertPrompt({ alert, clusterName, runbooks }: AlertPromptInput): string {
  const lines = [`Alert: ${alert.labels.alertname ?? "(no alertname)"} (${alert.status})`, "", "Labels:"]
  for (const [name, value] of Object.entries(alert.labels)) lines.push(`  ${name}: ${value}`)
  lines.push("", "Annotations:")
  for (const [name, value] of Object.entries(alert.annotations)) lines.push(`  ${name}: ${value}`)
  if (Object.keys(alert.annotations).length === 0) lines.push("  (none)")
  lines.push("")
  if (alert.startsAt) lines.push(`Started at: ${alert.startsAt}`)
  if (alert.generatorURL) lines.push(`Generator URL: ${alert.generatorURL}`)
  if (clusterName) lines.push(`Cluster: ${clusterName}`)
  lines.push(`Fingerprint: ${alert.fingerprint}`)
  const runbook = matchRunbook(alert.annotations.runbook_url, runbooks)
  if (runbook && runbooks) {
    lines.push("", `Runbook ${runbook.id} (${runbook.title}), from the alert's runbook_url:`, "<runbook>")
    lines.push(readRunbook(runbooks, runbook), "</runbook>")
  }
  lines.push("", INSTRUCTIONS)
  return lines.join("\n")
}

/**
 * The catalog entry the alert's `runbook_url` names: by id, by file name, or by a URL whose path
 * ends with the entry's id (a runbook repository served over HTTP).
 */
export function matchRunbook(
  url: string | undefined,
  catalog: RunbookCatalog | undefined,
): RunbookEntry | undefined {
  if (!url || !catalog) return undefined
  const path = (URL.parse(url)?.pathname ?? url).replace(/\/+$/, "")
  const bare = path.replace(/\.md$/, "")
  return (
    catalog.get(url) ??
    catalog.entries.find(
      (e) => e.path === url || bare === e.id || bare.endsWith(`/${e.id}`) || path.endsWith(`/${e.id}.md`),
    )
  )
}

function readRunbook(catalog: RunbookCatalog, entry: RunbookEntry): string {
  try {
    const text = catalog.read(entry)
    return text.length > MAX_RUNBOOK_CHARS
      ? `${text.slice(0, MAX_RUNBOOK_CHARS)}\n[TRUNCATED: fetch_runbook has the rest]`
      : text
  } catch (error) {
    return `(the runbook could not be read: ${error instanceof Error ? error.message : String(error)})`
  }
}
