/**
 * Extracts the fenced code blocks of a markdown file (the README), so that tests can run every
 * example a user would copy. A block is marked by HTML comments on the lines right before its
 * opening fence (blank lines between are allowed):
 *
 *   <!-- not-tested: needs a real cluster -->      the block is deliberately not run
 *   <!-- readme-test: expect-failed=statuspage --> free-form directives for the runner
 *
 * Each comment is `<!-- name: value -->`; the directives of a block are a name → value map.
 */
import { readFileSync } from "node:fs"

export type ReadmeBlock = {
  /** First word of the info string, lower-cased (`ts`, `yaml`, `sh`, `console`, or empty). */
  lang: string
  /** The whole info string after the fence. */
  info: string
  /** The block's text, with the fence's indentation removed; ends with a newline. */
  code: string
  /** 1-based line of the opening fence. */
  line: number
  /** Text of the nearest heading above the block (empty before the first one). */
  heading: string
  /** Directives from `<!-- name: value -->` comments right before the fence. */
  directives: Record<string, string>
  /** The reason given by `<!-- not-tested: reason -->`, when the block is not run. */
  notTested?: string
}

const FENCE = /^( {0,3}|\s*)(`{3,}|~{3,})\s*([^`]*)$/
const HEADING = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/
const DIRECTIVE = /^\s*<!--\s*([\w-]+)\s*:\s*(.*?)\s*-->\s*$/

export function readmeBlocks(markdown: string): ReadmeBlock[] {
  const lines = markdown.split("\n")
  const blocks: ReadmeBlock[] = []
  let heading = ""
  let pending: Record<string, string> = {}
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i] ?? ""
    const fence = FENCE.exec(text)
    if (!fence) {
      const directive = DIRECTIVE.exec(text)
      if (directive) pending[directive[1]!.toLowerCase()] = directive[2]!
      else if (text.trim() !== "") pending = {}
      const title = HEADING.exec(text)
      if (title) heading = title[1]!
      continue
    }
    const indent = fence[1]!.length
    const marker = fence[2]!
    const info = fence[3]!.trim()
    const body: string[] = []
    let j = i + 1
    for (; j < lines.length; j++) {
      const inner = lines[j] ?? ""
      const close = inner.trim()
      if (close.startsWith(marker[0]!.repeat(marker.length)) && /^[`~]+$/.test(close)) break
      body.push(stripIndent(inner, indent))
    }
    if (j >= lines.length) throw new Error(`README line ${i + 1}: code fence is never closed`)
    const directives = pending
    blocks.push({
      lang: (info.split(/\s+/)[0] ?? "").toLowerCase(),
      info,
      code: body.length ? `${body.join("\n")}\n` : "",
      line: i + 1,
      heading,
      directives,
      ...(directives["not-tested"] !== undefined ? { notTested: directives["not-tested"] } : {}),
    })
    pending = {}
    i = j
  }
  return blocks
}

export function readmeBlocksOf(path: string): ReadmeBlock[] {
  return readmeBlocks(readFileSync(path, "utf8"))
}

/** A short name for a block in test titles: `README:123 ts (Library)`. */
export function blockName(block: ReadmeBlock): string {
  return `README:${block.line} ${block.lang || "text"} (${block.heading})`
}

function stripIndent(line: string, indent: number): string {
  let n = 0
  while (n < indent && (line[n] === " " || line[n] === "\t")) n++
  return line.slice(n)
}
