/**
 * Secret redaction for tool output, applied to every result before the model reads it: a
 * credential that reaches the model can end up in an answer, a log or a provider's retention.
 *
 * Cost is bounded: every pattern starts on a literal or a short bounded class and every repetition
 * is bounded or unambiguous, the PEM and manifest passes are single scans, so 10 MB of hostile
 * output costs about what 10 MB of logs does. Redaction errs toward hiding: a false positive costs
 * the model one value, a false negative leaks a credential.
 */
import { redactContainerEnv } from "./redact-env.ts"
import { redactSecretValues } from "./redact-values.ts"

export const REDACTED = "[REDACTED]"

export function redact(text: string): string {
  if (!text) return text
  // The configured secrets by value first (redact-values.ts); then the shapes.
  let out = redactPem(redactSecretValues(text))
  out = redactSecretYaml(out)
  out = redactSecretJson(out, 0)
  out = redactContainerEnv(out, REDACTED)
  for (const [pattern, replacement] of RULES) out = out.replace(pattern, replacement as string)
  // The run scan builds a new string even when nothing matches; a token can only match a shape if
  // its prefix occurs somewhere, and that one test is several times cheaper on real logs.
  return TOKEN_PREFIX.test(out) ? out.replace(TOKEN_RUN, redactToken) : out
}

type Replacer = (substring: string, ...groups: string[]) => string

/** Secret-looking key names: a key ending in one of these (`DB_PASSWORD`, `client-secret`). */
const SECRET_KEY =
  "(?:password|passwd|secret|token|api[_-]?key|apikey|access[_-]?key|secret[_-]?key|private[_-]?key|client[_-]?key[_-]?data|account[_-]?key|sharedaccesskey|sharedaccesssignature|credentials?|auth[_-]?key|session[_-]?key)"
const QUOTED_VALUE = `\\\\"(?:[^"\\\\\\n]|\\\\[^"\\n]){0,4096}\\\\"|"[^"\\n]{0,4096}"|'[^'\\n]{0,4096}'`

const RULES: Array<[RegExp, string | Replacer]> = [
  // Authorization headers (curl -v, HTTP dumps, JSON): the scheme stays, the credential goes.
  [
    /\b(authorization["']?[ \t]*[:=][ \t]*["']?)(?:(bearer|basic|token|digest|negotiate|apikey)[ \t]+)?[^\s"',;]{1,4096}/gi,
    (_m, head, scheme) => `${head}${scheme ? `${scheme} ` : ""}${REDACTED}`,
  ],
  // `bearer xxx` anywhere else; 16+ characters so prose ("bearer tokens") survives.
  [/\b(bearer)([ \t]+)[A-Za-z0-9._~+/=-]{16,4096}/gi, `$1$2${REDACTED}`],
  // scheme://user:password@host -> scheme://user:[REDACTED]@host
  [/\b([a-z][a-z0-9+.-]{0,30}:\/\/)([^\s:/@"'<>]{1,256}):([^\s/@"'<>]{1,256})@/gi, `$1$2:${REDACTED}@`],
  // Kubernetes env entries: `name: DB_PASSWORD` then `value: hunter2` (YAML) or JSON.
  [
    new RegExp(
      `(name:[ \\t]*["']?[A-Za-z0-9_.-]{0,128}${SECRET_KEY}["']?[ \\t]*\\r?\\n[ \\t]{0,64}(?:- )?value:[ \\t]*)(?:${QUOTED_VALUE}|[^\\s][^\\n]{0,4096})`,
      "gi",
    ),
    `$1${REDACTED}`,
  ],
  [
    new RegExp(
      `("name"[ \\t]*:[ \\t]*"[A-Za-z0-9_.-]{0,128}${SECRET_KEY}"[ \\t]*,\\s{0,64}"value"[ \\t]*:[ \\t]*)"[^"\\n]{0,4096}"`,
      "gi",
    ),
    `$1"${REDACTED}"`,
  ],
  // key: value / key=value / "key": "value" for secret-looking keys. The key must end there, so
  // `secretName:` and `tokenTTL=` are left alone; booleans and null are not secrets.
  [
    new RegExp(
      `(${SECRET_KEY}(?:\\\\?["'])?[ \\t]*[:=][ \\t]*)(?!(?:true|false|null)\\b|\\[REDACTED)(${QUOTED_VALUE}|[^\\s"',;&}\\]]{1,4096})`,
      "gi",
    ),
    (_m, head, value) => `${head}${quoteLike(value ?? "")}`,
  ],
  // Signed URLs: Azure SAS, S3 and GCS signatures.
  [
    /([?&](?:sig|signature|x-amz-signature|x-amz-security-token|x-goog-signature|x-goog-credential)=)[^&\s"'<>]{1,4096}/gi,
    `$1${REDACTED}`,
  ],
]

/** Keeps the quoting of a value so JSON stays JSON after redaction. */
function quoteLike(value: string): string {
  if (value.startsWith('\\"')) return `\\"${REDACTED}\\"`
  if (value.startsWith('"')) return `"${REDACTED}"`
  if (value.startsWith("'")) return `'${REDACTED}'`
  return REDACTED
}

/**
 * Long runs of token characters. Matching a run is linear (a run is consumed whole, short ones
 * cost at most 20 steps), and each run is then tested against anchored shapes, so no pattern can
 * backtrack across a 10 MB line of base64.
 */
const TOKEN_RUN = /[A-Za-z0-9._-]{20,}/g
const TOKEN_SHAPES: RegExp[] = [
  /^eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/, // JWT (kube service account tokens)
  /^(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ABIA|ACCA)[A-Z0-9]{16}$/, // AWS access key ids
  /^sk-(?=[A-Za-z0-9_-]*[0-9])(?=[A-Za-z0-9_-]*[A-Z])[A-Za-z0-9_-]{32,}$/, // OpenAI, Anthropic (sk-ant-)
  /^sk-or-v1-[a-f0-9]{64}$/, // OpenRouter: lowercase hex, so the rule above misses it
  /^sk-[a-f0-9]{32,}$/, // DeepSeek: sk- and 32 lowercase hex
  /^xai-[A-Za-z0-9_-]{32,}$/, // xAI
  /^gsk_[A-Za-z0-9]{32,}$/, // Groq
  /^(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}$|^github_pat_[A-Za-z0-9_]{30,}$/, // GitHub
  /^xox[abprs]-[A-Za-z0-9-]{10,}$/, // Slack
  /^AIza[0-9A-Za-z_-]{35}$/, // Google API keys
  /^glpat-[A-Za-z0-9_-]{20,}$/, // GitLab
]

/** Every literal TOKEN_SHAPES starts with; keep the two lists in step. */
const TOKEN_PREFIX =
  /eyJ|AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ABIA|ACCA|sk-|xai-|gsk_|gh[pousr]_|github_pat_|xox[abprs]-|AIza|glpat-/

function redactToken(run: string): string {
  for (const shape of TOKEN_SHAPES) {
    const m = shape.exec(run)
    if (m) return REDACTED + run.slice(m[0].length)
  }
  return run
}

const PEM_BEGIN = /-----BEGIN ([A-Z0-9 ]{0,40}?)PRIVATE KEY( BLOCK)?-----/g
const PEM_END = /-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/g
/** What an unterminated key body looks like: base64, headers, `\n` escapes of JSON strings. */
const PEM_BODY = /(?:[A-Za-z0-9+/=\s:,.-]|\\n)*/y

/** Whole private key blocks, including ones whose END was cut off (truncated output). */
function redactPem(text: string): string {
  if (!text.includes("PRIVATE KEY")) return text
  const parts: string[] = []
  let last = 0
  let endMissingFrom = Number.POSITIVE_INFINITY
  PEM_BEGIN.lastIndex = 0
  for (let m = PEM_BEGIN.exec(text); m; m = PEM_BEGIN.exec(text)) {
    const bodyStart = PEM_BEGIN.lastIndex
    let stop = -1
    // Once no END follows some position, none follows a later one: search at most once past it.
    if (bodyStart < endMissingFrom) {
      PEM_END.lastIndex = bodyStart
      const end = PEM_END.exec(text)
      if (end) stop = PEM_END.lastIndex
      else endMissingFrom = bodyStart
    }
    if (stop < 0) {
      PEM_BODY.lastIndex = bodyStart
      PEM_BODY.exec(text)
      stop = PEM_BODY.lastIndex
    }
    parts.push(text.slice(last, m.index), `[REDACTED ${m[1] ?? ""}PRIVATE KEY]`)
    last = stop
    PEM_BEGIN.lastIndex = stop
  }
  parts.push(text.slice(last))
  return parts.join("")
}

const YAML_SECRET_KIND = /^( *)(- +)?kind:[ \t]*["']?Secret["']?[ \t]*(#.*)?$/
const YAML_DATA_KEY = /^(?:data|stringData):[ \t]*(.*?)[ \t]*$/

/** Indentation, the column keys start at (after `- `), and whether the line starts a list item. */
type YamlShape = { indent: number; col: number; item: boolean }

/** Without a regex: this runs on every line of the output. Blank and comment lines have no shape. */
function yamlShape(line: string): YamlShape | undefined {
  let indent = 0
  while (line.charCodeAt(indent) === 32) indent++
  if (indent === line.length || line[indent] === "#" || line[indent] === "\r") return undefined
  let col = indent
  while (line[col] === "-" && line[col + 1] === " ") {
    col += 2
    while (line.charCodeAt(col) === 32) col++
  }
  return { indent, col, item: col > indent }
}

function isDocumentMark(line: string): boolean {
  return line.startsWith("---") || line.startsWith("...")
}

/**
 * `data`/`stringData` of each YAML Secret object. `kind: Secret` may come after `data:` (kubectl
 * sorts keys), so the object around each `kind: Secret` line is found first: the lines at its
 * column up to the list item or document that starts the next object. Each line belongs to one
 * object, so the pass stays linear.
 */
function redactSecretYaml(text: string): string {
  if (!/^ *(- +)?kind:[ \t]*["']?Secret\b/m.test(text)) return text
  const lines: Array<string | null> = text.split("\n")
  let scannedTo = 0
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? ""
    const kind = line.includes("kind:") ? YAML_SECRET_KIND.exec(line) : null
    if (!kind || i < scannedTo) continue
    const col = (kind[1]?.length ?? 0) + (kind[2]?.length ?? 0)
    let lo = i
    if (!kind[2]) {
      for (let j = i - 1; j >= scannedTo; j--) {
        const raw = lines[j] ?? ""
        if (isDocumentMark(raw)) break
        const l = yamlShape(raw)
        if (!l) continue
        if (l.item && l.col === col) {
          lo = j
          break
        }
        if (l.indent < col) break
        lo = j
      }
    }
    let hi = i + 1
    for (; hi < lines.length; hi++) {
      const raw = lines[hi] ?? ""
      if (isDocumentMark(raw)) break
      const l = yamlShape(raw)
      if (!l) continue
      if (l.indent < col || (l.item && l.col === col)) break
    }
    scannedTo = hi
    for (let j = lo; j < hi; j++) {
      const raw = lines[j] ?? ""
      const l = yamlShape(raw)
      if (!l || l.col !== col || !(raw.startsWith("data:", col) || raw.startsWith("stringData:", col)))
        continue
      const data = YAML_DATA_KEY.exec(raw.slice(col))
      if (!data) continue
      if (data[1] && data[1] !== "{}") {
        lines[j] = `${raw.slice(0, raw.indexOf(":", col) + 1)} ${REDACTED}`
        continue
      }
      j = redactYamlBlock(lines, j + 1, hi, col)
    }
  }
  return lines.filter((l) => l !== null).join("\n")
}

/** Children of a `data:` block: each `key: value` keeps its key; block scalar lines are dropped. */
function redactYamlBlock(lines: Array<string | null>, from: number, hi: number, col: number): number {
  let childIndent = -1
  let j = from
  for (; j < hi; j++) {
    const raw = lines[j] ?? ""
    const l = yamlShape(raw)
    if (!l) continue
    if (l.indent <= col) break
    if (childIndent < 0) childIndent = l.indent
    // `key: value` keeps `key:`; a line without a colon is a block scalar's content.
    const colon = l.indent === childIndent ? raw.indexOf(":", l.indent) : -1
    lines[j] = colon > 0 ? `${raw.slice(0, colon + 1)} ${REDACTED}` : null
  }
  return j - 1
}

type JsonFrame = {
  secret: boolean
  key: string | null
  isData: boolean
  start: number
  spans: Array<[number, number]>
}

const JSON_SECRET_KIND = /"kind"\s*:\s*"Secret"|\\"kind\\"\s*:\s*\\"Secret\\"/
const JSON_DATA_VALUE = /("(?:[^"\\\n]|\\.)*"\s*:\s*)"(?:[^"\\\n]|\\.)*"/g

/**
 * `data`/`stringData` values of JSON Secret objects, found with one scan that tracks objects and
 * strings (a string ends at a newline, so non-JSON text around the JSON cannot derail it). A
 * string holding an escaped Secret (`last-applied-configuration` in `-o json`) is unescaped,
 * redacted and escaped again.
 */
function redactSecretJson(text: string, depth: number): string {
  if (!JSON_SECRET_KIND.test(text)) return text
  const stack: JsonFrame[] = []
  const edits: Array<[number, number, string]> = []
  let i = 0
  while (i < text.length) {
    const c = text[i]
    const top = stack.at(-1)
    if (c === '"') {
      let j = i + 1
      while (j < text.length && text[j] !== '"' && text[j] !== "\n") j += text[j] === "\\" ? 2 : 1
      if (text[j] !== '"') {
        i = j
        continue
      }
      const value = text.slice(i + 1, j)
      let k = j + 1
      while (text[k] === " " || text[k] === "\t" || text[k] === "\n" || text[k] === "\r") k++
      if (top && text[k] === ":") top.key = value
      else if (top) {
        if (top.key === "kind" && value === "Secret") top.secret = true
        else if (depth < 2 && value.includes('\\"Secret\\"')) {
          const inner = unescapeJson(value)
          const redacted = inner === undefined ? undefined : redactSecretJson(inner, depth + 1)
          if (redacted !== undefined && redacted !== inner)
            edits.push([i + 1, j, JSON.stringify(redacted).slice(1, -1)])
        }
        top.key = null
      }
      i = j + 1
      continue
    }
    if (c === "{") {
      stack.push({
        secret: false,
        key: null,
        isData: top?.key === "data" || top?.key === "stringData",
        start: i,
        spans: [],
      })
    } else if (c === "}" && top) {
      stack.pop()
      const parent = stack.at(-1)
      if (top.isData && parent) parent.spans.push([top.start, i + 1])
      if (top.secret)
        for (const [s, e] of top.spans)
          edits.push([s, e, text.slice(s, e).replace(JSON_DATA_VALUE, `$1"${REDACTED}"`)])
      if (parent) parent.key = null
    } else if (c === "," && top) {
      top.key = null
    }
    i++
  }
  if (edits.length === 0) return text
  edits.sort((a, b) => a[0] - b[0])
  const parts: string[] = []
  let last = 0
  for (const [s, e, replacement] of edits) {
    if (s < last) continue
    parts.push(text.slice(last, s), replacement)
    last = e
  }
  parts.push(text.slice(last))
  return parts.join("")
}

function unescapeJson(value: string): string | undefined {
  try {
    return JSON.parse(`"${value}"`) as string
  } catch {
    return undefined
  }
}

/** Shorter values are not treated as secrets to find verbatim: they would hit ordinary words. */
const MIN_KNOWN_SECRET = 8

/**
 * `redact` plus every occurrence of `secrets` (the configured keys and tokens themselves, whatever
 * shape they have): for text that may echo them back, such as a provider's or a proxy's error body.
 */
export function redactKnown(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text
  for (const secret of secrets) {
    if (secret && secret.length >= MIN_KNOWN_SECRET) out = out.replaceAll(secret, REDACTED)
  }
  return redact(out)
}
