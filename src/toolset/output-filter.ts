/**
 * HolmesGPT's `additional_instructions`: a shell command the output of a successful run is piped
 * through. HolmesGPT hands the text to `sh -c`; dupin reads it with run_bash_command's grammar
 * and policy instead, so a filter is held to the same rules as any command dupin runs on a
 * model's behalf: one pipeline of plain commands (`jq .items`, `grep -v x | head -50`) runs; a
 * program or option that writes, runs code or reaches out (`tee`, `curl … | sh`, `python3 -c`)
 * makes every call of the tool need a human; what the policy refuses, and text the grammar does
 * not accept, is a load error. The argv judged is the argv run: no shell reads the filter.
 */
import type { Verdict } from "./bash/verdict.ts"

export type OutputFilter = {
  /** The filter as written, for messages. */
  text: string
  /** Its pipeline stages, run without a shell. */
  stages: string[][]
  /** Why each call needs approval, when the policy says so. */
  approval?: string
}

/** The grammar and policy load only for a file that has a filter (run_bash_command's are lazy too). */
const grammar = (): typeof import("./bash/parse.ts") => require("./bash/parse.ts")
const policy = (): typeof import("./bash/policy.ts") => require("./bash/policy.ts")

/** The filter, or the reason it is refused. */
export function parseOutputFilter(text: string): OutputFilter | { refused: string } {
  const parsed = grammar().parseCommand(text.trim())
  if (!parsed.ok) return { refused: parsed.reason }
  const verdict: Verdict = policy().classifyPipeline(parsed.stages, { cwd: process.cwd() })
  if (verdict.decision === "deny") return { refused: verdict.reason }
  return {
    text: text.trim(),
    stages: parsed.stages,
    ...(verdict.decision === "approve" ? { approval: verdict.reason } : {}),
  }
}
