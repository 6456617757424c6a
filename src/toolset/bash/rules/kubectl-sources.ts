import { readFileSync, statSync } from "node:fs"
import { posix } from "node:path"
import { deny, type Verdict } from "../verdict.ts"

/**
 * Resources kubectl takes from somewhere other than its operands (findings R9): a `--raw` API
 * path, and manifests named by `-f`/`--filename`/`-k`/`--kustomize`. The hard-deny forms (reading
 * Secrets, minting tokens, deleting a namespace) are refused there too, even approved: stdin and
 * URLs are text neither dupin nor the person approving can read, a kustomization can generate
 * Secrets, and a manifest file is read here and refused when it holds such a kind. (A file
 * changed between this check and the run is the residual; approved commands cannot write
 * outside their temp dir.)
 */
export function sourceDeny(
  sub: string | undefined,
  args: readonly string[],
  cwd: string,
): Verdict | undefined {
  for (const raw of values(args, ["--raw"])) {
    const path = apiPath(raw)
    if (path === undefined) return deny(`kubectl --raw ${raw}: a path dupin cannot decode`)
    if (/\/secrets(\/|$)/i.test(path)) return deny("kubectl --raw of secrets exposes credentials")
    if (/\/(token|tokenrequests?)(\/|$)/i.test(path))
      return deny("kubectl --raw to a token endpoint mints credentials")
    // The namespace object itself (and its finalize/status subresources): any verb but a read.
    if (sub !== "get" && /^\/api\/v1\/namespaces\/[^/]+(\/(finalize|status))?$/i.test(path))
      return deny("kubectl --raw on a namespace can delete everything in it")
  }
  if (sub === "logs") return undefined
  if (values(args, ["-k", "--kustomize"]).length > 0)
    return deny("kubectl -k builds manifests (a kustomization can generate Secrets) dupin does not read")
  for (const source of values(args, ["-f", "--filename"])) {
    const problem = manifestProblem(source, cwd)
    if (problem) return deny(`kubectl -f ${source}: ${problem}`)
  }
  return undefined
}

/** Every value of the named flags, in pflag's spellings (`-f x`, `-fx`, `-f=x`, `--raw=x`). */
function values(args: readonly string[], names: readonly string[]): string[] {
  const found: string[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "--") break
    for (const name of names) {
      if (arg === name) {
        if (i + 1 < args.length) found.push(args[i + 1]!)
      } else if (arg.startsWith(`${name}=`)) found.push(arg.slice(name.length + 1))
      else if (name.length === 2) {
        // A short flag after kubectl's one-letter bools (`-Rf x`, `-Rfx`, `-f=x`).
        const group = new RegExp(`^-[ARwitq]*${name[1]}(.*)$`).exec(arg)
        if (!group) continue
        if (group[1]) found.push(group[1].replace(/^=/, ""))
        else if (i + 1 < args.length) found.push(args[i + 1]!)
      }
    }
  }
  return found
}

/** The path as the API server routes it: percent-decoded, dot segments and the query gone. */
function apiPath(raw: string): string | undefined {
  let decoded = raw.split(/[?#]/)[0]!
  for (let i = 0; i < 3; i++) {
    try {
      decoded = decodeURIComponent(decoded)
    } catch {
      return undefined
    }
  }
  return posix.normalize(`/${decoded}`).replace(/\/+$/, "")
}

const MAX_MANIFEST = 1024 * 1024
/** A kind that could be a Secret or a Namespace: those two, any `…List` (items of any kind). */
const DENIED_KIND = /["']?kind["']?\s*:\s*["']?(Secret|Namespace|[A-Za-z]*List)\b/i

function manifestProblem(source: string, cwd: string): string | undefined {
  if (source === "-") return "manifests from standard input could name a Secret or a Namespace"
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source))
    return "manifests from a URL could name a Secret or a Namespace"
  const path = posix.resolve(cwd, source)
  try {
    const stat = statSync(path)
    if (!stat.isFile()) return "a directory of manifests dupin does not read"
    if (stat.size > MAX_MANIFEST) return "a manifest too large to check"
    const kind = DENIED_KIND.exec(readFileSync(path, "utf8"))
    return kind ? `the manifest holds kind ${kind[1]} (Secrets and Namespaces are refused)` : undefined
  } catch {
    return "a manifest dupin cannot read, so cannot check for Secrets and Namespaces"
  }
}
