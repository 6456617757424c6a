import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs"
import { join, relative, resolve, sep } from "node:path"
import { parse as parseYaml } from "yaml"
import { ConfigError, errorMessage } from "../errors.ts"

export type RunbookEntry = {
  /** Identifier the model passes to fetch_runbook: the path inside its folder, without `.md`. */
  id: string
  title: string
  description: string
  /** Absolute, symlink-resolved path of the file. */
  path: string
}

const MAX_RUNBOOK_BYTES = 1_000_000

/**
 * Runbooks from the configured folders: a `catalog.json` (HolmesGPT's `{catalog: [{description,
 * link}]}`) when present, otherwise every `.md` file, titled by its front matter or first heading.
 */
export class RunbookCatalog {
  readonly entries: RunbookEntry[]

  constructor(entries: RunbookEntry[]) {
    this.entries = entries
  }

  static load(folders: readonly string[]): RunbookCatalog {
    const entries: RunbookEntry[] = []
    for (const folder of folders) {
      if (!existsSync(folder) || !statSync(folder).isDirectory()) {
        throw new ConfigError(`runbooks: ${folder} is not a readable folder.`, "runbooks")
      }
      const root = realpathSync(folder)
      const catalog = join(root, "catalog.json")
      const found = existsSync(catalog) ? fromCatalogJson(root, catalog) : fromMarkdownFiles(root)
      for (const entry of found) if (!entries.some((e) => e.id === entry.id)) entries.push(entry)
    }
    return new RunbookCatalog(entries)
  }

  get(id: string): RunbookEntry | undefined {
    return this.entries.find((e) => e.id === id || e.id === id.replace(/\.md$/, ""))
  }

  /** Reads a runbook's text. Only catalog entries can be read, so no path from the model reaches the disk. */
  read(entry: RunbookEntry): string {
    const size = statSync(entry.path).size
    if (size > MAX_RUNBOOK_BYTES)
      throw new Error(`Runbook ${entry.id} is larger than ${MAX_RUNBOOK_BYTES} bytes.`)
    return readFileSync(entry.path, "utf8")
  }

  /** The catalog as the `time_runbooks` prompt section shows it. */
  promptText(): string | undefined {
    if (this.entries.length === 0) return undefined
    const lines = this.entries.map(
      (e) => `- ${e.id}: ${e.title}${e.description ? ` — ${e.description}` : ""}`,
    )
    return `Runbooks are available. If one matches the problem, read it with fetch_runbook and follow it:\n${lines.join("\n")}`
  }
}

function fromCatalogJson(root: string, file: string): RunbookEntry[] {
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"))
  } catch (error) {
    throw new ConfigError(`${file}: not valid JSON: ${errorMessage(error)}`, file)
  }
  const list = (parsed as { catalog?: unknown }).catalog
  if (!Array.isArray(list))
    throw new ConfigError(`${file}: expected {"catalog": [{"description", "link"}]}.`, file)
  return list.flatMap((item, i) => {
    const { link, description, title } = item as Record<string, unknown>
    if (typeof link !== "string") throw new ConfigError(`${file}: catalog[${i}].link must be a string.`, file)
    const path = inside(root, link)
    if (!path) throw new ConfigError(`${file}: catalog[${i}].link ${link} points outside ${root}.`, file)
    const text = readFileSync(path, "utf8")
    const meta = frontMatter(text, path)
    return [
      {
        id: relative(root, path).replace(/\.md$/, ""),
        title: typeof title === "string" ? title : (meta.title ?? link),
        description: typeof description === "string" ? description : (meta.description ?? ""),
        path,
      },
    ]
  })
}

function fromMarkdownFiles(root: string): RunbookEntry[] {
  const files = readdirSync(root, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".md"))
    .sort()
  return files.flatMap((file) => {
    const path = inside(root, file)
    if (!path) return []
    const meta = frontMatter(readFileSync(path, "utf8"), path)
    return [
      { id: file.replace(/\.md$/, ""), title: meta.title ?? file, description: meta.description ?? "", path },
    ]
  })
}

/** The real path of `link` under `root`, or undefined when it escapes it (`..`, absolute, symlink). */
function inside(root: string, link: string): string | undefined {
  const candidate = resolve(root, link)
  if (!existsSync(candidate)) return undefined
  const real = realpathSync(candidate)
  return real.startsWith(root + sep) ? real : undefined
}

/**
 * Title and description from the file's YAML front matter (`---` lines around it, at the very
 * start), parsed with `yaml`: quoting, comments and folded or multi-line values as YAML has them.
 * Without a title there, the first `# heading` is the title.
 */
function frontMatter(text: string, file: string): { title?: string; description?: string } {
  const out: { title?: string; description?: string } = {}
  const fm = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text)
  if (fm) {
    let meta: unknown
    try {
      meta = parseYaml(fm[1] ?? "")
    } catch (error) {
      throw new ConfigError(`${file}: the front matter is not valid YAML: ${yamlProblem(error)}`, file)
    }
    if (meta !== null && typeof meta === "object" && !Array.isArray(meta)) {
      const { title, description } = meta as Record<string, unknown>
      if (isText(title)) out.title = String(title).trim()
      if (isText(description)) out.description = String(description).trim()
    }
  }
  out.title ??= /^#\s+(.+)$/m.exec(text)?.[1]?.trim()
  return out
}

/**
 * The YAML library's problem as one line, with the file's line number (the front matter starts on
 * line 2) and, for the usual slip (`title: Incident: DB down`), the fix. Its own message carries a
 * code frame over several lines, which the CLI would print as several errors.
 */
function yamlProblem(error: unknown): string {
  const first =
    errorMessage(error)
      .split("\n")[0]
      ?.replace(/ at line \d+, column \d+:?$/, "") ?? ""
  const line = (error as { linePos?: Array<{ line: number }> }).linePos?.[0]?.line
  const at = line ? ` (line ${line + 1})` : ""
  const hint = /nested mappings|implicit keys|mapping values/i.test(first)
    ? '; quote a value that holds ": " (title: "Incident: DB down")'
    : ""
  return `${first}${at}${hint}`
}

function isText(value: unknown): value is string | number {
  return typeof value === "string" || typeof value === "number"
}
