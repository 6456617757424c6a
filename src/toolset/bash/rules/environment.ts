import type { ProgramRule } from "./program.ts"

/**
 * Environment and shell-variable dumps hand provider keys and tokens to the model: they are
 * refused even with approval. `set` dumps only bare; the others with print flags only (`export -p`).
 */
const ENVIRONMENT = { what: "the environment" }
const VARIABLES = "the shell's variables and environment"
const PRINT_FLAGS = /^-[pxrgaAfFil]*$/

const dump = (name: string, when: RegExp): ProgramRule => ({
  dumps: { what: VARIABLES, when },
  examples: { ask: [`${name} NAME`], deny: [`${name} -p`, `sh -c '${name} -p; ls'`] },
})

export const ENVIRONMENT_DUMPS: Record<string, ProgramRule> = {
  // In a word of another program's text it is only a word (`kubectl set env`, a commit message).
  env: {
    dumps: ENVIRONMENT,
    examples: { ask: ["kubectl set env deploy/x X=1"], deny: ["env", "env uptime", "sh -c 'env'"] },
  },
  printenv: {
    dumps: ENVIRONMENT,
    examples: { ask: ["git commit -m 'printenv'"], deny: ["printenv HOME", "printenv"] },
  },
  // `set x` sets the positional parameters, `set -x` an option: only a bare `set` dumps.
  set: {
    dumps: { what: VARIABLES, when: /(?!)/ },
    examples: { ask: ["set -x"], deny: ["set", "bash -c 'set'"] },
  },
  declare: dump("declare", PRINT_FLAGS),
  typeset: dump("typeset", PRINT_FLAGS),
  export: dump("export", PRINT_FLAGS),
  readonly: dump("readonly", PRINT_FLAGS),
  local: dump("local", PRINT_FLAGS),
}
