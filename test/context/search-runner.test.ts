import { expect, test } from "bun:test"
import { runSearch } from "../../src/context/search-runner.ts"
import { worstEventLoopGap } from "../support/event-loop-gap.ts"

const text = Array.from(
  { length: 2_000 },
  (_, i) => `line ${i + 1}${i === 1234 ? " ERROR" : ""} ${"a".repeat(1_000)}`,
).join("\n")
const request = { text, pattern: "ERROR", ignoreCase: false, maxMatches: 10, budgetMs: 5_000 }

test("the search runs in a worker and keeps the event loop free", async () => {
  const { value: reply, worstGapMs } = await worstEventLoopGap(() =>
    runSearch({ ...request, pattern: "(.|.)*Z|ERROR" }, new AbortController().signal),
  )
  expect(reply).toEqual({ kind: "found", found: { lines: [1235], more: false }, window: 10_000 })
  expect(worstGapMs).toBeLessThan(250)
})

test("refusals come back as messages for the model", async () => {
  const reply = await runSearch({ ...request, pattern: "(a)\\1" }, new AbortController().signal)
  expect(reply.kind).toBe("refused")
  if (reply.kind === "refused") expect(reply.message).toContain("Backreferences")
})

test("an abort ends the search", async () => {
  const abort = new AbortController()
  const running = runSearch(request, abort.signal)
  // Once the worker has started: the abort terminates it.
  setTimeout(() => abort.abort(new Error("client left")), 5)
  await expect(running).rejects.toThrow("client left")
})

test("more searches than workers queue and all finish", async () => {
  const signal = new AbortController().signal
  const replies = await Promise.all(Array.from({ length: 10 }, () => runSearch(request, signal)))
  for (const reply of replies) expect(reply.kind).toBe("found")
})
