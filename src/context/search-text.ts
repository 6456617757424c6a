import type { Found, findMatches } from "./output-pager.ts"
import { compileSearchPattern } from "./search-pattern.ts"

export type SearchRequest = {
  text: string
  pattern: string
  ignoreCase: boolean
  maxMatches: number
  budgetMs: number
}

export type SearchReply =
  | { kind: "found"; found: Found; window: number }
  | { kind: "refused"; message: string }

/** Compile and scan; the same code runs in the worker and, as a fallback, on the main thread. */
export async function searchText(
  request: SearchRequest,
  find: typeof findMatches,
  signal?: AbortSignal,
): Promise<SearchReply> {
  const compiled = compileSearchPattern(request.pattern, request.ignoreCase)
  if (typeof compiled === "string") return { kind: "refused", message: compiled }
  const found = await find(request.text, compiled.test, {
    maxMatches: request.maxMatches,
    window: compiled.window,
    budgetMs: request.budgetMs,
    ...(signal ? { signal } : {}),
  })
  return { kind: "found", found, window: compiled.window }
}
