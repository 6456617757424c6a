/**
 * HTML to readable, markdown-ish text for the model: headings as `#`, links as `[text](href)`,
 * lists as `- `, `pre` as fenced code, scripts/styles dropped, whitespace collapsed. One linear
 * pass over the tags (every regex here is either anchored on a literal or stops at the next `<`),
 * so a hostile 2 MB page costs what a friendly one does. Not a browser: good enough to read docs,
 * status pages and error pages.
 */
const SKIP_CONTENT = new Set([
  "script",
  "style",
  "noscript",
  "template",
  "svg",
  "iframe",
  "object",
  "canvas",
  "head",
])
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
const NAMED_ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  mdash: "—",
  ndash: "–",
  hellip: "…",
  copy: "©",
  reg: "®",
  trade: "™",
  laquo: "«",
  raquo: "»",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
  middot: "·",
  bull: "•",
}

// `<!doctype>`, `<![CDATA[`, `<?xml?>` are dropped whole; comments are skipped up to `-->`.
const TAG = /<!--|<[!?][^<>]*>|<(\/?)([a-zA-Z][a-zA-Z0-9:-]*)([^<>]*)>/g

export function htmlToText(html: string, baseUrl?: string): string {
  const out: string[] = []
  const title = /<title[^<>]*>([^<]*)<\/title/i.exec(html)?.[1]
  if (title?.trim()) out.push(`Title: ${collapse(decodeEntities(title)).trim()}\n\n`)
  const links: Array<string | undefined> = []
  const lists: Array<{ ordered: boolean; n: number }> = []
  let pre = 0
  let last = 0
  TAG.lastIndex = 0
  for (let m = TAG.exec(html); m; m = TAG.exec(html)) {
    pushText(out, html.slice(last, m.index), pre > 0)
    last = TAG.lastIndex
    if (m[0] === "<!--") {
      last = skipTo(html, /-->/g, TAG.lastIndex)
      TAG.lastIndex = last
      continue
    }
    if (m[2] === undefined) continue
    const closing = m[1] === "/"
    const name = m[2].toLowerCase()
    const attrs = m[3] ?? ""
    if (!closing && SKIP_CONTENT.has(name) && !attrs.endsWith("/")) {
      last = skipTo(html, new RegExp(`</${name}\\s*>`, "gi"), TAG.lastIndex)
      TAG.lastIndex = last
      continue
    }
    const heading = /^h([1-6])$/.exec(name)
    if (heading) {
      out.push(closing ? "\n\n" : `\n\n${"#".repeat(Number(heading[1]))} `)
    } else if (name === "a") {
      if (closing) {
        const href = links.pop()
        out.push(href ? `](${href})` : "")
      } else {
        const href = linkTarget(attrs, baseUrl)
        links.push(href)
        if (href) out.push("[")
      }
    } else if (name === "ul" || name === "ol") {
      if (closing) lists.pop()
      else lists.push({ ordered: name === "ol", n: 0 })
      out.push("\n")
    } else if (name === "li" && !closing) {
      const list = lists.at(-1)
      const indent = "  ".repeat(Math.max(0, lists.length - 1))
      out.push(`\n${indent}${list?.ordered ? `${++list.n}.` : "-"} `)
    } else if (name === "pre") {
      pre += closing ? -1 : 1
      pre = Math.max(0, pre)
      out.push(closing ? "\n```\n" : "\n```\n")
    } else if (name === "code" && pre === 0) {
      out.push("`")
    } else if (name === "br") {
      out.push("\n")
    } else if (name === "hr") {
      out.push("\n---\n")
    } else if (name === "td" || name === "th") {
      if (!closing) out.push(" | ")
    } else if (name === "img" && !closing) {
      const alt = attribute(attrs, "alt")
      if (alt) out.push(`[image: ${collapse(alt)}]`)
    } else if (BLOCK.has(name)) {
      out.push("\n\n")
    }
  }
  pushText(out, html.slice(last), pre > 0)
  return tidy(out.join(""))
}

function pushText(out: string[], raw: string, preformatted: boolean): void {
  if (!raw) return
  if (preformatted) {
    out.push(decodeEntities(raw))
    return
  }
  const text = collapse(decodeEntities(raw))
  // A space at the start of a line is markup indentation, not content.
  const atLineStart = out.length === 0 || (out.at(-1) ?? "").endsWith("\n")
  const kept = atLineStart ? text.trimStart() : text
  if (kept) out.push(kept)
}

/** Index just past the next match of `close` from `from`, or the end: an unclosed script hides the rest. */
function skipTo(html: string, close: RegExp, from: number): number {
  close.lastIndex = from
  return close.exec(html) ? close.lastIndex : html.length
}

function linkTarget(attrs: string, baseUrl: string | undefined): string | undefined {
  const href = attribute(attrs, "href")?.trim()
  if (!href || href.startsWith("#") || /^(javascript|data|vbscript):/i.test(href)) return undefined
  try {
    return baseUrl ? new URL(href, baseUrl).href : href
  } catch {
    return href
  }
}

const ATTRIBUTES = {
  href: /(?:^|\s)href\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/i,
  alt: /(?:^|\s)alt\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/i,
}

function attribute(attrs: string, name: keyof typeof ATTRIBUTES): string | undefined {
  const m = ATTRIBUTES[name].exec(attrs)
  if (!m) return undefined
  return decodeEntities(m[1] ?? m[2] ?? m[3] ?? "")
}

function collapse(text: string): string {
  return text.replace(/\s+/g, " ")
}

export function decodeEntities(text: string): string {
  return text.replace(/&(#\d{1,7}|#x[0-9a-f]{1,6}|[a-z]{2,8});/gi, (whole, entity: string) => {
    if (entity[0] === "#") {
      const code =
        entity[1] === "x" || entity[1] === "X"
          ? Number.parseInt(entity.slice(2), 16)
          : Number(entity.slice(1))
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole
    }
    return NAMED_ENTITIES[entity.toLowerCase()] ?? whole
  })
}

/** Trailing spaces off each line, at most one blank line in a row. */
function tidy(text: string): string {
  return text
    .replace(/[ \t]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim()
}
