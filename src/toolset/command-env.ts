/**
 * `$NAME` in a YAML command: HolmesGPT runs `os.path.expandvars` on its commands, and its docs
 * recommend `${GRAFANA_TOKEN}` for values the model must not see. dupin hands a toolset the
 * variables it declares (`env:`, or its `prerequisites` `env` list) from its own environment;
 * the shell expands them as data, so a value never becomes shell text, and no other variable of
 * dupin's environment (provider keys) reaches a tool. A reference that will expand empty is
 * named at load, since the command would otherwise run with a silent hole in it.
 */
import type { Env } from "../config/env.ts"
import { PROVIDERS } from "../llm/providers.ts"
import { log } from "../log.ts"
import { addSecretValues, looksSecret } from "../redact-values.ts"
import { buildToolEnv } from "../tool/tool-env.ts"
import type { ToolsetDefinition } from "./schema.ts"

/**
 * `$NAME` and `${NAME…}`, not `$1`, `$?` or `$(...)`. The second group is what follows the name in
 * braces (`:-default`, `#prefix`).
 */
const REFERENCE = /\$(?:\{([A-Za-z_][A-Za-z0-9_]*)([^}]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g
/** `${NAME:-x}`, `${NAME=x}`, `${NAME:+x}`: the shell supplies a value (or nothing, on purpose) when NAME is unset. */
const HAS_FALLBACK = /^:?[-=+]/
/** Names the script sets itself: `NAME=`, `for NAME in`, `read [-r] NAME`, `local NAME`. */
const ASSIGNED =
  /(?:^|[\s;&|(])(?:(?:export|local|declare|readonly)\s+(?:-\w+\s+)*)?([A-Za-z_][A-Za-z0-9_]*)(?:\+?=|\[)|\bfor\s+([A-Za-z_][A-Za-z0-9_]*)\s+in\b|\bread\s+(?:-\w+\s+)*([A-Za-z_][A-Za-z0-9_ ]*)/g
/** The provider key variables: the model's keys, never a tool's. */
const DUPIN_OWN = new Set(Object.values(PROVIDERS).flatMap((p) => (p.keyEnv ? [p.keyEnv] : [])))

/** Set by the shell itself. */
const SHELL_VARIABLES = new Set([
  "RANDOM",
  "SECONDS",
  "LINENO",
  "PWD",
  "OLDPWD",
  "IFS",
  "BASH_SOURCE",
  "BASHPID",
  "PPID",
  "UID",
  "EUID",
  "HOSTNAME",
  "REPLY",
  "OPTARG",
  "OPTIND",
])

/** The declared variables' values for the toolset's processes; secrets among them join the redaction list. */
export function toolsetCommandEnv(definition: ToolsetDefinition, env: Env): Record<string, string> {
  const values: Record<string, string> = {}
  for (const name of definition.env) {
    if (DUPIN_OWN.has(name) || name.startsWith("SVC_")) {
      // Declared or not, dupin's provider keys and its own secrets never reach a tool process.
      log.warn(`toolset ${definition.name}: ${name} is dupin's own secret and is not passed to tools`, {
        file: definition.fileName,
        toolset: definition.name,
      })
      continue
    }
    const value = env[name]
    if (value !== undefined) values[name] = value
  }
  addSecretValues(
    Object.entries(values).flatMap(([name, value]) => (looksSecret(name, value) ? [value] : [])),
  )
  return values
}

/**
 * Warns once per toolset about `$NAME`s in its commands (tools, output filters, prerequisite
 * commands) that will expand empty, and says how to pass them; and about a `${NAME:-default}`
 * whose NAME dupin has but does not pass (HolmesGPT's commands saw its whole environment).
 */
export function warnEmptyReferences(
  definition: ToolsetDefinition,
  env: Env,
  passed: Record<string, string>,
): void {
  const toolEnv = buildToolEnv(env)
  const empty = new Set<string>()
  const defaulted = new Set<string>()
  const scripts = [
    ...definition.tools.flatMap((tool) => [tool.command, tool.outputFilter ?? ""]),
    ...definition.prerequisites.flatMap((p) => ("command" in p ? [p.command] : [])),
  ]
  for (const script of scripts) {
    const expanded = shellExpandedText(script)
    const assigned = new Set<string>()
    for (const m of expanded.matchAll(ASSIGNED)) {
      for (const name of (m[1] ?? m[2] ?? m[3] ?? "").split(/\s+/)) if (name) assigned.add(name)
    }
    for (const m of expanded.matchAll(REFERENCE)) {
      const name = (m[1] ?? m[3]) as string
      if (assigned.has(name) || SHELL_VARIABLES.has(name) || name.startsWith("DUPIN_P_")) continue
      if (passed[name] !== undefined || toolEnv[name] !== undefined) continue
      if (!HAS_FALLBACK.test(m[2] ?? "")) empty.add(name)
      else if (env[name] !== undefined && !definition.env.includes(name)) defaulted.add(name)
    }
  }
  if (defaulted.size > 0) {
    const names = [...defaulted]
    log.warn(
      `toolset ${definition.name}: ${names.map((n) => `$\{${n}:-…}`).join(", ")} in its commands will take the default: ` +
        `${names.join(", ")} ${names.length === 1 ? "is" : "are"} set in dupin's environment but not passed; ` +
        `declare ${names.length === 1 ? "it" : "them"} in the toolset's env: list to pass the value`,
      { file: definition.fileName, toolset: definition.name, variables: names },
    )
  }
  if (empty.size === 0) return
  const names = [...empty]
  const undeclared = names.filter((n) => !definition.env.includes(n))
  log.warn(
    `toolset ${definition.name}: ${names.map((n) => `$${n}`).join(", ")} in its commands will be empty` +
      (undeclared.length > 0
        ? `; declare ${undeclared.join(", ")} in the toolset's env: list (and set ${names.length === 1 ? "it" : "them"} in dupin's environment)`
        : `; set ${names.length === 1 ? "it" : "them"} in dupin's environment`),
    { file: definition.fileName, toolset: definition.name, variables: names },
  )
}

/**
 * The text of a command where the shell expands variables: without single-quoted strings
 * (`awk '{print $NF}'`, a jq program), escaped dollars and comments. A reference there is text
 * for the program, not a variable of the toolset.
 */
function shellExpandedText(script: string): string {
  let out = ""
  let inDouble = false
  for (let i = 0; i < script.length; i++) {
    const c = script[i]!
    if (c === "\\") {
      i++
      continue
    }
    if (c === '"') inDouble = !inDouble
    else if (!inDouble && c === "'") {
      const end = script.indexOf("'", i + 1)
      i = end === -1 ? script.length : end
      out += " "
      continue
    } else if (!inDouble && c === "#" && (i === 0 || /\s/.test(script[i - 1]!))) {
      const end = script.indexOf("\n", i)
      i = end === -1 ? script.length : end - 1
      continue
    }
    out += c
  }
  return out
}
