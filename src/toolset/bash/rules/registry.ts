import { CLOUD } from "./cli.ts"
import { DEVICES } from "./devices.ts"
import { ENVIRONMENT_DUMPS } from "./environment.ts"
import { TEXT_FILTERS } from "./filters.ts"
import { FIND } from "./find.ts"
import { HELM_DOCKER } from "./helm-docker.ts"
import { HOST } from "./host.ts"
import { INTERPRETERS, SHELLS } from "./interpreters.ts"
import { JQ } from "./jq.ts"
import { KUBECTL } from "./kubectl.ts"
import { NETWORK } from "./network.ts"
import type { ProgramRule } from "./program.ts"
import { PS } from "./ps.ts"
import { READERS } from "./readers.ts"
import { SED_AWK } from "./sed-awk.ts"
import { SERVICES } from "./services.ts"
import { SYSSTAT } from "./sysstat.ts"
import { WRAPPERS } from "./wrappers.ts"
import { WRITERS } from "./writers.ts"

/**
 * Every program the bash policy has rules for, one record each, from the family files. A name in
 * two families is a mistake (one record would hide the other) and fails at the first lookup.
 */
function build(): ReadonlyMap<string, ProgramRule> {
  const families = [
    READERS,
    FIND,
    HOST,
    DEVICES,
    SERVICES,
    NETWORK,
    SYSSTAT,
    TEXT_FILTERS,
    SED_AWK,
    JQ,
    PS,
    KUBECTL,
    HELM_DOCKER,
    CLOUD,
    WRAPPERS,
    SHELLS,
    INTERPRETERS,
    WRITERS,
    ENVIRONMENT_DUMPS,
  ]
  const rules = new Map<string, ProgramRule>()
  for (const family of families) {
    for (const [name, rule] of Object.entries(family)) {
      if (rules.has(name)) throw new Error(`bash policy: two rules for ${name}`)
      rules.set(name, rule)
    }
  }
  return rules
}

// Built on first use: the family files may import helpers that look rules up (writers.ts).
let registry: ReadonlyMap<string, ProgramRule> | undefined

/** All rules, by program name. */
export function programRules(): ReadonlyMap<string, ProgramRule> {
  registry ??= build()
  return registry
}

/** The rule for the program `name` (a basename), if the policy has one. */
export function ruleFor(name: string): ProgramRule | undefined {
  return programRules().get(name)
}
