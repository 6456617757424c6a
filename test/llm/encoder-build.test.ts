import { expect, test } from "bun:test"
import { Tiktoken } from "js-tiktoken/lite"
import o200k from "js-tiktoken/ranks/o200k_base"
import { buildEncoder } from "../../src/llm/encoder-build.ts"

type Maps = { rankMap: Map<string, number>; textMap: Map<number, Uint8Array> }

// R17: the sliced build must be the library's encoder, not an approximation of it.
test("the encoder built in slices has the library's vocabulary and encodes the same", async () => {
  const sliced = await buildEncoder(Tiktoken, o200k)
  const library = new Tiktoken(o200k)
  const a = sliced as unknown as Maps
  const b = library as unknown as Maps
  expect(a.rankMap.size).toBe(b.rankMap.size)
  expect(a.textMap.size).toBe(b.textMap.size)
  for (const [key, rank] of b.rankMap) if (a.rankMap.get(key) !== rank) throw new Error(`rank of ${key}`)
  const text = "kubectl get pods -n kube-system | grep CrashLoopBackOff 🚀 données <|endoftext|>"
  expect(sliced.encode(text, [], [])).toEqual(library.encode(text, [], []))
  expect(sliced.decode(sliced.encode(text, [], []))).toBe(text)
}, 60_000)

test("the build gives the event loop a turn while it runs", async () => {
  let turns = 0
  const timer = setInterval(() => turns++, 1)
  await buildEncoder(Tiktoken, o200k)
  clearInterval(timer)
  expect(turns).toBeGreaterThan(10)
}, 60_000)
