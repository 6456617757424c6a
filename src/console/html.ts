import htm from "htm"
import { h } from "preact"

/**
 * JSX without a build step of its own: htm turns tagged templates into Preact nodes. Preact + htm
 * is ~5 KB, keeps the whole page well under the budget, and escapes every interpolated string, so
 * untrusted text is text unless a component opts into sanitized markup (markdown.ts).
 */
export const html = htm.bind(h)
