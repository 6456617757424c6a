/**
 * HTML to readable, markdown-ish text for the model: headings as `#`, links as `[text](href)`,
 * lists as `- `, `pre` as fenced code, scripts/styles dropped, whitespace collapsed. Parsed by
 * Bun's HTMLRewriter (lol-html, a streaming tokenizer in native code): linear in the page, fed in
 * small chunks so the event loop runs between them and an abort (the tool timeout) stops it. A
 * regex tokenizer was quadratic on `<a` + 300,000 letters and froze the server for 54 s. Entities
 * (every named and numeric one, HTML5's rules for a missing `;`) are decoded by `entities`, in text
 * and attributes alike. Not a browser: good enough to read docs, status pages and error pages.
 */
import { decodeHTML, decodeHTMLAttribute } from "entities"

const SKIP_CONTENT = new Set(["script", "style", "noscript", "template", "svg", "iframe", "object", "canvas"])
const BLOCK = new Set([
  "p",
  "div",
  "section",
  "article",
  "header",
  "footer",
  "main",
  "nav",
  "aside",
  "table",
  "thead",
  "tbody",
  "tr",
  "blockquote",
  "form",
  "dl",
  "dt",
  "dd",
  "figure",
  "figcaption",
  "details",
  "summary",
  "address",
])
/** Bytes handed to the tokenizer at a time; the event loop runs between two chunks. */
const CHUNK_BYTES = 16_384
const MAX_TITLE_CHARS = 500
/** Text of one node buffered at most before it is decoded in part. */
const FLUSH_CHARS = 32_768
/**
 * An entity possibly cut at the end of a piece is looked for this far back: the longest named one
 * (`&CounterClockwiseContourIntegral;`, 33) and a numeric one with some leading zeros fit.
 */
const MAX_ENTITY_CHARS = 48

export type HtmlToTextOptions = {
  baseUrl?: string
  signal?: AbortSignal
  /**
   * Text kept at most (about); parsing stops past it, so joining and tidying the result stays
   * small however many elements the page has. The caller cuts to its exact limit.
   */
  maxChars?: number
}

/** Converts a page; rejects with the signal's reason when it aborts. */
export async function htmlToText(html: string, options: HtmlToTextOptions = {}): Promise<string> {
  const out: string[] = []
  const limit = (options.maxChars ?? 200_000) + 1_000
  let size = 0
  const emit = (text: string) => {
    if (!text) return
    out.push(text)
    size += text.length
  }
  const links: Array<string | undefined> = []
  const lists: Array<{ ordered: boolean; n: number }> = []
  let title = ""
  let inTitle = 0
  let skip = 0
  let pre = 0
  // A text node arrives in chunks that may split an entity (`&am` + `p;`): it is decoded in
  // pieces cut before any `&` near their end.
  let pending = ""

  const rewriter = new HTMLRewriter()
    .on("*", {
      element(el) {
        const name = el.tagName.toLowerCase()
        const end = (handler: () => void) => {
          if (el.canHaveContent && !el.selfClosing) el.onEndTag(handler)
        }
        if (name === "title") {
          inTitle++
          end(() => inTitle--)
          return
        }
        if (SKIP_CONTENT.has(name)) {
          if (!el.canHaveContent || el.selfClosing) return
          skip++
          end(() => skip--)
          return
        }
        if (skip > 0) return
        const heading = /^h([1-6])$/.exec(name)
        if (heading) {
          emit(`\n\n${"#".repeat(Number(heading[1]))} `)
          end(() => emit("\n\n"))
        } else if (name === "a") {
          const href = linkTarget(el.getAttribute("href"), options.baseUrl)
          links.push(href)
          if (href) emit("[")
          end(() => {
            const target = links.pop()
            emit(target ? `](${target})` : "")
          })
        } else if (name === "ul" || name === "ol") {
          // A nested list starts on the item's next line, without a blank line in between.
          if (lists.length === 0) emit("\n")
          lists.push({ ordered: name === "ol", n: 0 })
          end(() => {
            lists.pop()
            if (lists.length === 0) emit("\n")
          })
        } else if (name === "li") {
          const list = lists.at(-1)
          const indent = "  ".repeat(Math.max(0, lists.length - 1))
          emit(`\n${indent}${list?.ordered ? `${++list.n}.` : "-"} `)
        } else if (name === "pre") {
          pre++
          emit("\n```\n")
          end(() => {
            pre = Math.max(0, pre - 1)
            emit("\n```\n")
          })
        } else if (name === "code" && pre === 0) {
          emit("`")
          end(() => emit("`"))
        } else if (name === "br") {
          emit("\n")
        } else if (name === "hr") {
          emit("\n---\n")
        } else if (name === "td" || name === "th") {
          emit(" | ")
        } else if (name === "img") {
          const alt = el.getAttribute("alt")
          if (alt) emit(`[image: ${collapse(decodeHTMLAttribute(alt))}]`)
        } else if (BLOCK.has(name)) {
          emit("\n\n")
          end(() => emit("\n\n"))
        }
      },
    })
    .onDocument({
      text(chunk) {
        pending += chunk.text
        let raw: string
        if (chunk.lastInTextNode) {
          raw = pending
          pending = ""
        } else {
          if (pending.length < FLUSH_CHARS) return
          // A long text node is decoded as it comes, not all at the end (300,000 entities take
          // ~300 ms at once); an entity possibly cut at the end waits for the next chunk.
          const amp = pending.lastIndexOf("&")
          const cut = amp !== -1 && pending.length - amp <= MAX_ENTITY_CHARS ? amp : pending.length
          raw = pending.slice(0, cut)
          pending = pending.slice(cut)
        }
        if (inTitle > 0) {
          if (title.length < MAX_TITLE_CHARS) title += raw.slice(0, MAX_TITLE_CHARS)
        } else if (skip === 0) {
          emit(textOf(raw, pre > 0, out.at(-1)))
        }
      },
    })
  await rewriter.transform(new Response(chunked(html, options.signal, () => size > limit))).arrayBuffer()
  const heading = collapse(decodeHTML(title)).trim()
  return tidy(`${heading ? `Title: ${heading}\n\n` : ""}${out.join("")}`)
}

/**
 * The page as a byte stream in small chunks; errors with the signal's reason once it aborts, ends
 * early once `enough` says so.
 */
function chunked(
  html: string,
  signal: AbortSignal | undefined,
  enough: () => boolean,
): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(html)
  let offset = 0
  return new ReadableStream({
    async pull(controller) {
      // A macrotask between chunks: the tokenizer's callbacks otherwise run back to back.
      await new Promise((resolve) => setImmediate(resolve))
      if (signal?.aborted) {
        controller.error(signal.reason)
        return
      }
      if (offset >= bytes.length || enough()) {
        controller.close()
        return
      }
      controller.enqueue(bytes.subarray(offset, offset + CHUNK_BYTES))
      offset += CHUNK_BYTES
    },
  })
}

/** Text of one node as it goes out: entities decoded, whitespace collapsed outside `pre`. */
function textOf(raw: string, preformatted: boolean, previous: string | undefined): string {
  if (preformatted) return decodeHTML(raw)
  const text = collapse(decodeHTML(raw))
  // A space at the start of a line is markup indentation, not content.
  const atLineStart = previous === undefined || previous.endsWith("\n")
  return atLineStart ? text.trimStart() : text
}

function linkTarget(raw: string | null, baseUrl: string | undefined): string | undefined {
  const href = raw === null ? undefined : decodeHTMLAttribute(raw).trim()
  if (!href || href.startsWith("#") || /^(javascript|data|vbscript):/i.test(href)) return undefined
  try {
    return baseUrl ? new URL(href, baseUrl).href : href
  } catch {
    return href
  }
}

function collapse(text: string): string {
  return text.replace(/\s+/g, " ")
}

/**
 * Trailing spaces and tabs off each line, at most one blank line in a row. A loop, not
 * `/[ \t]+\n/g`: that regex restarts at every space of a long run without a newline (2 MB of
 * spaces in a `<pre>` would take hours).
 */
function tidy(text: string): string {
  const lines: string[] = []
  let blank = 0
  for (const line of text.split("\n")) {
    let end = line.length
    while (end > 0 && (line[end - 1] === " " || line[end - 1] === "\t")) end--
    blank = end === 0 ? blank + 1 : 0
    if (blank < 2) lines.push(end === line.length ? line : line.slice(0, end))
  }
  return lines.join("\n").trim()
}
