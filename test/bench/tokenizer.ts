/**
 * Tokenizer throughput on realistic tool output: container logs, YAML manifests, JSON, tables.
 * dupin counts with its own byte-pair encoder (src/llm/bpe.ts), piece by piece through a memo
 * (src/llm/token-memo.ts). The baseline is what a user would reach for: js-tiktoken's
 * `new Tiktoken(ranks).encode(text, [], []).length`, over the same ranks dupin builds its
 * vocabulary from. The counts must be identical on every corpus; the report says so or shows both.
 */
import { Tiktoken, type TiktokenBPE } from "js-tiktoken/lite"
import cl100k from "js-tiktoken/ranks/cl100k_base"
import o200k from "js-tiktoken/ranks/o200k_base"
import type { BytePairEncoder } from "../../src/llm/bpe.ts"
import { buildEncoder } from "../../src/llm/encoder-build.ts"
import { PieceCounter, TextCounts } from "../../src/llm/token-memo.ts"
import { type EncodingName, TokenCounter } from "../../src/llm/tokens.ts"
import { jsonPods, logLines, ofSize, podTable, prng, yamlManifest } from "./support/corpus.ts"
import { type BenchReport, emit } from "./support/report.ts"
import { fmt, median } from "./support/stats.ts"

const SIZE = 1_000_000
const REPEATS = Number(process.env.BENCH_ROUNDS ?? 5)
const ENCODINGS: Array<{ encoding: EncodingName; model: string; ranks: TiktokenBPE }> = [
  { encoding: "o200k_base", model: "openai/gpt-4o", ranks: o200k },
  { encoding: "cl100k_base", model: "openai/gpt-4", ranks: cl100k },
]

function corpora(): Array<[string, string]> {
  const r = prng(42)
  return [
    ["kubectl logs (JSON + text lines)", ofSize(SIZE, () => logLines(r, 50))],
    ["YAML manifests (kubectl get -o yaml)", ofSize(SIZE, () => `${yamlManifest(r)}---\n`)],
    ["JSON (kubectl get pods -o json)", ofSize(SIZE, () => jsonPods(r, 10))],
    ["kubectl get pods table", ofSize(SIZE, () => podTable(r, 40))],
  ]
}

type Timed = { ms: number; tokens: number }

function timeIt(fn: () => number): Timed {
  const times: number[] = []
  let tokens = 0
  for (let i = 0; i < REPEATS; i++) {
    const started = performance.now()
    tokens = fn()
    times.push(performance.now() - started)
  }
  return { ms: median(times), tokens }
}

const tokensPerSecond = (t: Timed) => (t.tokens / t.ms) * 1000

/** One corpus counted three ways. */
type Measured = {
  encoding: EncodingName
  corpus: string
  text: string
  bytes: number
  /** Distinct pre-tokenizer pieces: what the memo has to learn on a first pass. */
  pieces: number
  tiktoken: Timed
  first: Timed
  second: Timed
}

function measure(
  encoding: EncodingName,
  counter: TokenCounter,
  encoder: BytePairEncoder,
  tiktoken: Tiktoken,
  corpus: string,
  text: string,
): Measured {
  // A text this long skips TokenCounter's cache of whole texts, so every pass counts its pieces.
  if (TextCounts.accepts(text)) throw new Error(`${corpus}: short enough to be cached whole`)
  const warmUp = text.slice(0, 50_000)
  tiktoken.encode(warmUp, [], [])
  new PieceCounter(encoder).count(warmUp)
  const baseline = timeIt(() => tiktoken.encode(text, [], []).length)
  // TokenCounter is shared per encoding and keeps its memo. A fresh PieceCounter over an encoder
  // built as TokenCounter builds its own is exactly what countText runs for this text, from an
  // empty memo, as for a new tool output whose pieces were never seen.
  const first = timeIt(() => new PieceCounter(encoder).count(text))
  counter.countText(text)
  const second = timeIt(() => counter.countText(text))
  const pieces = new Set(text.match(new RegExp(encoder.pattern, "gu"))).size
  return {
    encoding,
    corpus,
    text,
    bytes: Buffer.byteLength(text),
    pieces,
    tiktoken: baseline,
    first,
    second,
  }
}

async function main(): Promise<BenchReport> {
  const measured: Measured[] = []
  for (const { encoding, model, ranks } of ENCODINGS) {
    const counter = await TokenCounter.forModel(model)
    if (counter.encoding !== encoding)
      throw new Error(`${model} counts with ${counter.encoding}, not ${encoding}`)
    const encoder = await buildEncoder(encoding)
    const tiktoken = new Tiktoken(ranks)
    for (const [corpus, text] of corpora()) {
      measured.push(measure(encoding, counter, encoder, tiktoken, corpus, text))
    }
  }

  const mbps = (m: Measured, t: Timed) => m.bytes / 1e6 / (t.ms / 1000)
  const differs = measured.filter(
    (m) => m.first.tokens !== m.tiktoken.tokens || m.second.tokens !== m.tiktoken.tokens,
  )
  const rows = measured.map((m) => [
    m.encoding,
    m.corpus,
    String(m.tiktoken.tokens),
    String(m.pieces),
    fmt(mbps(m, m.tiktoken)),
    fmt(tokensPerSecond(m.tiktoken), 0),
    fmt(mbps(m, m.first)),
    fmt(tokensPerSecond(m.first), 0),
    fmt(tokensPerSecond(m.second), 0),
    fmt(m.tiktoken.ms / m.first.ms, 1),
    fmt(m.tiktoken.ms / m.second.ms, 1),
    differs.includes(m) ? `NO: dupin ${m.first.tokens} / ${m.second.tokens}` : "yes",
  ])
  const worst = Math.min(
    ...measured.filter((m) => m.encoding === "o200k_base").map((m) => tokensPerSecond(m.first)),
  )
  return {
    name: "Tokenizer throughput",
    method:
      `1 MB of each synthetic corpus (seeded), counted ${REPEATS} times, median. "js-tiktoken" is ` +
      "`new Tiktoken(ranks).encode(text, [], []).length`, the library a user would reach for (dupin builds its " +
      'vocabulary from the same ranks). "dupin" is its production tokenizer (bpe.ts, counted piece by piece through ' +
      "token-memo.ts's memo): the first pass starts from an empty memo (a fresh PieceCounter, which is what " +
      "TokenCounter.countText runs for a text this long), the second pass is TokenCounter.countText on a corpus it " +
      "has counted once. Distinct pieces: what the memo learns in a first pass. Speed-up = js-tiktoken time / dupin time.",
    table: {
      head: [
        "encoding",
        "corpus",
        "tokens",
        "distinct pieces",
        "js-tiktoken MB/s",
        "js-tiktoken tokens/s",
        "dupin first pass MB/s",
        "dupin first pass tokens/s",
        "dupin second pass tokens/s",
        "speed-up (first pass)",
        "speed-up (second pass)",
        "same count",
      ],
      rows,
    },
    targets: [
      {
        claim: "production tokenizer, worst realistic corpus (o200k)",
        measured: `${fmt(worst / 1e6, 2)} M tokens/s (first pass)`,
        target: "no stated target; ≥ 1 M tokens/s keeps a 25k-token tool result under 25 ms",
        met: worst >= 1e6,
      },
      {
        claim: "identical counts to js-tiktoken",
        measured:
          differs.length === 0
            ? "identical on every corpus, both encodings, both passes"
            : `DIFFERS on ${differs.map((m) => `${m.encoding} ${m.corpus}`).join(", ")}`,
        target: "identical",
        met: differs.length === 0,
      },
    ],
    notes: await optionalGptTokenizer(measured.filter((m) => m.encoding === "o200k_base")),
  }
}

/**
 * gpt-tokenizer (pure JS, same o200k ranks) is another library a user might reach for. It is not
 * a dependency; when installed (`bun add -d gpt-tokenizer`) it is measured too. It keeps a merge
 * cache across calls, so its repeats are compared with dupin's second pass.
 */
async function optionalGptTokenizer(measured: readonly Measured[]): Promise<string[]> {
  const specifier = "gpt-tokenizer/encoding/o200k_base"
  let countTokens: ((text: string) => number) | undefined
  try {
    countTokens = ((await import(specifier)) as { countTokens: (text: string) => number }).countTokens
  } catch {
    return ["gpt-tokenizer is not installed: `bun add -d gpt-tokenizer` to measure it too."]
  }
  const notes: string[] = []
  for (const m of measured) {
    countTokens(m.text.slice(0, 50_000))
    const alt = timeIt(() => countTokens(m.text))
    notes.push(
      `gpt-tokenizer o200k, ${m.corpus}: ${fmt(tokensPerSecond(alt), 0)} tokens/s, ` +
        `dupin's second pass ${fmt(alt.ms / m.second.ms, 1)}x its speed, count ` +
        (alt.tokens === m.second.tokens ? "identical" : `DIFFERS (${alt.tokens} vs ${m.second.tokens})`),
    )
  }
  return notes
}

if (import.meta.main) emit(await main())
