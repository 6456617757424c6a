import DOMPurify from "dompurify"
import { marked } from "marked"

/**
 * Model text is untrusted: it may quote a log line an attacker wrote. It is rendered as markdown,
 * then sanitized; raw HTML in it survives only as DOMPurify's safe subset, links open in a new tab
 * without an opener or referrer, and any URL that is not http(s), mailto or an anchor is dropped
 * (`javascript:`, `data:`, `vbscript:`).
 */
const SAFE_URL = /^(?:https?:|mailto:|#)/i

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A") {
    const href = node.getAttribute("href")
    if (href !== null && !SAFE_URL.test(href.trim())) node.removeAttribute("href")
    node.setAttribute("target", "_blank")
    node.setAttribute("rel", "noopener noreferrer")
  }
  if (node.tagName === "IMG") {
    // Remote images would leak that the page was read (and are blocked by the CSP anyway).
    const src = node.getAttribute("src") ?? ""
    if (!src.startsWith("data:image/")) node.removeAttribute("src")
  }
})

export function renderMarkdown(text: string): string {
  const raw = marked.parse(text, { async: false, gfm: true, breaks: false })
  return DOMPurify.sanitize(raw, {
    USE_PROFILES: { html: true },
    FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select", "iframe", "object", "embed"],
    FORBID_ATTR: ["style", "id", "name"],
  })
}
