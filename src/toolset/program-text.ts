import { awkProgramVerdict } from "./bash/rules/awk-program.ts"
import { jqFilterVerdict } from "./bash/rules/jq-filter.ts"
import { sedScriptProblem } from "./bash/rules/sed-script.ts"
import { approve, type Verdict } from "./bash/verdict.ts"

/**
 * Programs whose text a YAML tool parameter may carry (`program: jq`). The value is checked by
 * the same grammar as in run_bash_command: outside it the call needs a human, and what is refused
 * there (the environment) is refused here too, approved or not.
 */
export const PROGRAM_KINDS = ["jq", "awk", "sed"] as const
export type ProgramKind = (typeof PROGRAM_KINDS)[number]

export function programTextVerdict(kind: ProgramKind, text: string): Verdict {
  switch (kind) {
    case "jq":
      return jqFilterVerdict(text)
    case "awk":
      return awkProgramVerdict(text)
    case "sed": {
      const problem = sedScriptProblem(text)
      return problem ? approve(`sed script has ${problem}`) : { decision: "allow", reason: "sed script" }
    }
  }
}
