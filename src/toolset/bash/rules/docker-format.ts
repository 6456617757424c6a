import { allow, approve, type Verdict } from "../verdict.ts"

/**
 * `docker inspect --format` runs a Go template over the whole object, so it can print a
 * container's environment in shapes the output redaction cannot recognise
 * (`{{json .Config.Env}}`, `{{range .Config.Env}}…`, `{{json .Config}}`, finding R4). Without
 * approval a template is a small grammar: actions that print, `range`/`with`/`if` over field
 * paths, `end`/`else`, optionally through `json`, `upper`, `lower`; no path that leads into or
 * above an environment, no variables, no other functions.
 */
const ACTION = /{{-?\s*(.*?)\s*-?}}/gs
const PATH = /^(\.|(\.[A-Za-z_][A-Za-z0-9_]*)+)$/
/** Where inspect objects keep environments: containers, images (two places), services. */
const ENVIRONMENTS = [".Config.Env", ".ContainerConfig.Env", ".Spec.TaskTemplate.ContainerSpec.Env"]

export function inspectFormatVerdict(format: string): Verdict {
  for (const [, body] of format.matchAll(ACTION)) {
    const words = body!.split(/\s+/).filter(Boolean)
    if (words.length === 1 && (words[0] === "end" || words[0] === "else")) continue
    const [head, ...rest] = words
    const path = head && ["range", "with", "if", "json", "upper", "lower"].includes(head) ? rest : words
    if (path.length !== 1 || !PATH.test(path[0]!))
      return approve(`docker inspect --format ${body}: only field paths run without approval`)
    if (reachesEnvironment(path[0]!))
      return approve(`docker inspect --format ${path[0]} prints container environments (secrets)`)
  }
  return allow("docker inspect --format prints fields")
}

/** `.` and `.Config` hold `.Config.Env`; `.Config.Env` and below are it. */
function reachesEnvironment(path: string): boolean {
  const lower = path.toLowerCase()
  return ENVIRONMENTS.some((env) => {
    const e = env.toLowerCase()
    return path === "." || e.startsWith(`${lower}.`) || lower === e || lower.startsWith(`${e}.`)
  })
}
