import { afterEach, expect, test } from "bun:test"
import { Tiktoken } from "js-tiktoken/lite"
import o200k from "js-tiktoken/ranks/o200k_base"
import type { Vocabulary } from "../../src/llm/bpe-vocabulary.ts"
import { buildEncoder, buildInWorker, buildOnLoop } from "../../src/llm/encoder-build.ts"
import { setLogLevel, setLogSink } from "../../src/log.ts"

const TEXT = "kubectl get pods -n kube-system | grep CrashLoopBackOff 🚀 données <|endoftext|>"

const sameArrays = (a: Vocabulary, b: Vocabulary) =>
  Buffer.from(a.bytes).equals(Buffer.from(b.bytes)) &&
  Buffer.from(a.starts.buffer).equals(Buffer.from(b.starts.buffer)) &&
  Buffer.from(a.table.buffer).equals(Buffer.from(b.table.buffer))

let restore: (() => void) | undefined
afterEach(() => {
  restore?.()
  restore = undefined
})

/** Warnings from here on (the preload only lets errors through). */
function captureLogs(): string[] {
  const lines: string[] = []
  const previousSink = setLogSink((line) => lines.push(line))
  const previousLevel = setLogLevel("WARN")
  restore = () => {
    setLogSink(previousSink)
    setLogLevel(previousLevel)
  }
  return lines
}

// R17: the tokenizer is built off the event loop, and it is the library's tokenizer.
test("the worker builds the same vocabulary as the main thread, and the encoder is the library's", async () => {
  const logs = captureLogs()
  const [inWorker, onLoop] = await Promise.all([buildInWorker("o200k_base"), buildOnLoop("o200k_base")])
  expect(inWorker.pattern).toBe(o200k.pat_str)
  expect(sameArrays(inWorker, onLoop)).toBe(true)
  const encoder = await buildEncoder("o200k_base")
  expect(encoder.encode(TEXT)).toEqual(new Tiktoken(o200k).encode(TEXT, [], []))
  expect(encoder.decode(encoder.encode(TEXT))).toBe(TEXT)
  // No fallback: the worker ran.
  expect(logs.filter((line) => line.includes("worker unavailable"))).toEqual([])
}, 60_000)

test("building on the main thread gives the event loop a turn while it runs", async () => {
  let turns = 0
  const timer = setInterval(() => turns++, 1)
  // o200k_base's ranks are loaded by now (the test above): only the build itself is timed.
  await buildOnLoop("o200k_base")
  clearInterval(timer)
  // A turn every 4 ms of work (the build is 30-50 ms on an idle machine); built in one piece, the
  // 1 ms timer would not run at all until it ended.
  expect(turns).toBeGreaterThan(1)
}, 60_000)

test("where no worker can start, the tokenizer is built on the main thread", async () => {
  const logs = captureLogs()
  const { Worker } = globalThis
  globalThis.Worker = class {
    constructor() {
      throw new Error("workers are disabled here")
    }
  } as unknown as typeof Worker
  try {
    const encoder = await buildEncoder("cl100k_base")
    expect(encoder.encode("hello world")).toEqual([15339, 1917])
  } finally {
    globalThis.Worker = Worker
  }
  expect(logs.some((line) => line.includes("workers are disabled here"))).toBe(true)
}, 60_000)
