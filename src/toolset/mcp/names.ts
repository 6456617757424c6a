/**
 * The names an MCP server's tools get in dupin. A server's tool names and descriptions are
 * untrusted input: a name must never shadow another tool (built-in, YAML, an earlier server's, or
 * one the loop adds at run time), and must be one every provider accepts
 * (`^[a-zA-Z0-9_-]{1,64}$`, OpenAI's rule), or every request of the run would fail.
 */

import { CORE_TOOL_NAMES } from "../../tool/core-names.ts"

/** What providers refuse in a function name. */
const NAME_CHARS = /[^A-Za-z0-9_-]/g
const NAME_MAX = 64
/** Characters of a description the model sees; the rest is cut (a description is untrusted text). */
export const DESCRIPTION_MAX = 8192

/**
 * Names the loop adds to a run's executor after the toolsets (the search and paging tools) or
 * treats as core (the planning tool): an MCP tool named so would shadow them.
 */
export const RESERVED_NAMES = CORE_TOOL_NAMES

/**
 * The server's name for the tool made valid for providers, or `<server>__<name>` when that is
 * taken; `{ skip }` with the reason when neither can be used.
 */
export function toolName(
  remote: string,
  server: string,
  taken: ReadonlySet<string>,
): { name: string } | { skip: string } {
  if (remote.trim() === "") return { skip: "the server gave the tool no name" }
  const plain = valid(remote)
  if (!taken.has(plain) && !RESERVED_NAMES.has(plain)) return { name: plain }
  const prefixed = valid(`${server}__${remote}`)
  if (!taken.has(prefixed) && !RESERVED_NAMES.has(prefixed)) return { name: prefixed }
  return {
    skip: `its name (${JSON.stringify(plain)}) and the server-prefixed name (${JSON.stringify(prefixed)}) are both taken`,
  }
}

function valid(name: string): string {
  return name.replace(NAME_CHARS, "_").slice(0, NAME_MAX)
}

/** The description the model sees: the server's, cut to `DESCRIPTION_MAX` characters. */
export function toolDescription(text: string): string {
  return text.length <= DESCRIPTION_MAX ? text : `${text.slice(0, DESCRIPTION_MAX)} [TRUNCATED]`
}
