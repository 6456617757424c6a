/**
 * Worker entry of read_tool_output's search: compiles the model's pattern with RE2 and scans the
 * stored output here, off the server's event loop. build.ts lists this file as an entry point so
 * the compiled binary contains it.
 */
import { findMatches } from "./output-pager.ts"
import { type SearchReply, type SearchRequest, searchText } from "./search-text.ts"

declare const self: Worker

self.onmessage = async (event: MessageEvent<SearchRequest>) => {
  let reply: SearchReply
  try {
    reply = await searchText(event.data, findMatches)
  } catch (error) {
    reply = {
      kind: "refused",
      message: `Search failed: ${error instanceof Error ? error.message : String(error)}`,
    }
  }
  self.postMessage(reply)
}
