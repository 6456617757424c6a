import type { ToolCall } from "./types.ts"

/**
 * Gives every tool call of one reply its own id. Some providers repeat an id within a reply
 * (findings R17: two calls `call_same`, one benign and one needing approval); the history then
 * pairs two results with one id and every resume is refused, so the conversation is lost. The
 * repeat is renamed here, where the reply enters dupin, so that the history, the approval
 * signatures and the provider all see the same distinct ids from then on.
 */
export function uniqueCallIds(calls: ToolCall[]): ToolCall[] {
  const taken = new Set(calls.map((c) => c.id))
  if (taken.size === calls.length) return calls
  const used = new Set<string>()
  return calls.map((call) => {
    if (!used.has(call.id)) {
      used.add(call.id)
      return call
    }
    let n = 2
    while (taken.has(`${call.id}_${n}`) || used.has(`${call.id}_${n}`)) n++
    const id = `${call.id}_${n}`
    used.add(id)
    return { ...call, id }
  })
}
