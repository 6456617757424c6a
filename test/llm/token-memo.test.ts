import { describe, expect, test } from "bun:test"
import { Tiktoken } from "js-tiktoken/lite"
import cl100k from "js-tiktoken/ranks/cl100k_base"
import o200k from "js-tiktoken/ranks/o200k_base"
import { TextCounts } from "../../src/llm/token-memo.ts"
import { type EncodingName, TokenCounter } from "../../src/llm/tokens.ts"
import { jsonPods, logLines, podTable, prng, yamlManifest } from "../bench/support/corpus.ts"

// The raw encoder, with no memo in front: the reference every count must equal.
const RAW: Record<EncodingName, Tiktoken> = {
  o200k_base: new Tiktoken(o200k),
  cl100k_base: new Tiktoken(cl100k),
}
const MODELS: Record<EncodingName, string> = { o200k_base: "openai/gpt-4o", cl100k_base: "openai/gpt-4" }
const rawCount = (encoding: EncodingName, text: string) => RAW[encoding].encode(text, [], []).length

/** The cut the counter made before the piece memo: encode the bounded prefix, decode maxTokens. */
function referenceTruncate(raw: Tiktoken, text: string, maxTokens: number): string {
  if (maxTokens <= 0) return ""
  const bounded = text.length > maxTokens * 8 ? text.slice(0, maxTokens * 8) : text
  const tokens = raw.encode(bounded, [], [])
  if (tokens.length <= maxTokens) return bounded
  const prefix = raw.decode(tokens.slice(0, maxTokens))
  if (text.startsWith(prefix)) return prefix
  let end = 0
  while (end < prefix.length && prefix.charCodeAt(end) === text.charCodeAt(end)) end++
  const last = text.charCodeAt(end - 1)
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end--
  return text.slice(0, end)
}

const rand = prng(42)
const CORPORA: Record<string, string> = {
  "kubectl logs": logLines(rand, 300),
  "YAML manifests": Array.from({ length: 8 }, () => yamlManifest(rand)).join("\n---\n"),
  "JSON pods": jsonPods(rand, 10),
  "pod table": podTable(rand, 200),
  "unicode prose":
    "Déjà vu, naïve café — «guillemets» and “quotes”. Ünïcödé ǅ titlecase, e\u0301 combining, ﬁ ligature.\n" +
    "Привет, мир! Καλημέρα κόσμε. مرحبا بالعالم ١٢٣٤٥. שלום עולם. नमस्ते दुनिया। สวัสดีชาวโลก\n" +
    "I'M sure it's fine, they'LL see; we'd've DONE it. Don't WON'T can't.\u00a0NBSP\u2028LS\u3000IDSP\n",
  CJK:
    "日本語のテキストを数えます。東京都渋谷区、ポッドが再起動を繰り返しています。\n" +
    "中文文本：容器因内存不足被终止（OOMKilled），请检查资源限制。\n한국어 텍스트: 파드가 계속 재시작됩니다.\n",
  emoji: "deploy 🚀 ok ✅ fail ❌ 👩‍👩‍👧‍👦 family 🇫🇷🇯🇵 flags 👍🏽 skin 🧑‍💻 coder ⚠️ warn 😀😃😄😁😆\n".repeat(
    5,
  ),
  "whitespace and specials":
    "a  b\t\tc \r\n\r\n  d   \n\n\n    e\u200bzero-width <|endoftext|> <|fim_prefix|> x<|endofprompt|>y\n\t \n",
}

const FRAGMENTS = [
  ...Object.values(CORPORA).flatMap((text) => text.split(/(?<=\s)/).slice(0, 60)),
  "'s",
  "'LL",
  "'Re",
  " \r\n",
  "\r",
  "\t",
  "   ",
  "1234567",
  "0x7f3a",
  "١٢٣",
  "\u0301",
  "🇫🇷",
  "\u200d",
  "\ud800",
  "\udfff",
  "<|endoftext|>",
  "...",
  "/*",
  "==>",
  "\\n",
]

/** Texts stitched from fragments that sit at piece boundaries: contractions, marks, ZWJ, CRLF. */
function fuzzTexts(seed: number, count: number): string[] {
  const r = prng(seed)
  return Array.from({ length: count }, () =>
    Array.from(
      { length: 1 + Math.floor(r() * 24) },
      () => FRAGMENTS[Math.floor(r() * FRAGMENTS.length)]!,
    ).join(""),
  )
}

describe.each(["o200k_base", "cl100k_base"] as const)("piece memo (%s)", (encoding) => {
  test("counts equal the raw encoder's on every corpus, cold and warm", async () => {
    const counter = await TokenCounter.forModel(MODELS[encoding])
    for (const [name, text] of Object.entries(CORPORA)) {
      const expected = rawCount(encoding, text)
      expect({ name, count: counter.countText(text) }).toEqual({ name, count: expected })
      // A variant defeats the by-content cache, so the warm piece memo answers.
      expect({ name, count: counter.countText(`${text}.`) }).toEqual({
        name,
        count: rawCount(encoding, `${text}.`),
      })
    }
  })

  test("counts equal the raw encoder's on fuzzed text and on every prefix cut", async () => {
    const counter = await TokenCounter.forModel(MODELS[encoding])
    for (const text of fuzzTexts(encoding === "o200k_base" ? 1 : 2, 400)) {
      expect({ text, count: counter.countText(text) }).toEqual({ text, count: rawCount(encoding, text) })
    }
    const logs = CORPORA["kubectl logs"]!
    for (let end = 1; end < 4000; end += 37) {
      const text = logs.slice(0, end)
      expect(counter.countText(text)).toBe(rawCount(encoding, text))
    }
  })

  test("a 128-character word is still exact; longer ones are sliced, close and fast", async () => {
    const counter = await TokenCounter.forModel(MODELS[encoding])
    // o200k splits letter runs at case changes, so only it sees " AbAb…" as short pieces.
    const short = encoding === "o200k_base" ? [` ${"Ab".repeat(300)}`] : []
    const r = prng(5)
    const word = (n: number) => Array.from({ length: n }, () => "etaoinshrdlu"[Math.floor(r() * 12)]).join("")
    for (const text of [word(128), ` ${word(127)}`, `${word(100)} ${word(127)}!`, ...short]) {
      expect(counter.countText(text)).toBe(rawCount(encoding, text))
    }
    for (const run of [
      "q".repeat(300),
      " ".repeat(300),
      "\n".repeat(300),
      "=".repeat(300),
      "é".repeat(300),
    ]) {
      const exact = rawCount(encoding, run)
      const counted = counter.countText(run)
      // At most one token more per 16-character slice; never fewer than a quarter of the truth.
      expect(counted).toBeLessThanOrEqual(exact + Math.ceil(run.length / 16))
      expect(counted).toBeGreaterThanOrEqual(Math.floor(exact / 4))
    }
    // Unsliced, each of these takes the raw encoder about 40 s (the merge is quadratic per piece).
    const started = performance.now()
    for (const run of ["a".repeat(20_000), " ".repeat(20_000), "\n".repeat(20_000), "-".repeat(20_000)]) {
      expect(counter.countText(`log: ${run} end`)).toBeGreaterThan(20_000 / 16)
      expect(counter.truncateToTokens(run, 10).length).toBeGreaterThan(0)
    }
    expect(performance.now() - started).toBeLessThan(1000)
  })

  test("truncateToTokens cuts exactly where decoding the first maxTokens tokens does", async () => {
    const counter = await TokenCounter.forModel(MODELS[encoding])
    const raw = RAW[encoding]
    for (const [name, text] of Object.entries(CORPORA)) {
      for (const budget of [1, 2, 3, 7, 50, 333, 5000, 1_000_000]) {
        const cut = counter.truncateToTokens(text, budget)
        expect({ name, budget, cut }).toEqual({ name, budget, cut: referenceTruncate(raw, text, budget) })
      }
    }
    for (const text of fuzzTexts(3, 200)) {
      const budget = 1 + (text.length % 9)
      const cut = counter.truncateToTokens(text, budget)
      expect(text.startsWith(cut)).toBe(true)
      expect(cut.includes("\uFFFD")).toBe(false)
      // Lone surrogates are the one place the decode-based cut gave up text; elsewhere, equal. (Not
      // "the cut re-counts to at most budget": "I'" of "I'M" is one token more on its own.)
      if (!/[\ud800-\udfff]/.test(text)) expect(cut).toBe(referenceTruncate(raw, text, budget))
    }
  })
})

describe("counts by content", () => {
  test("a system prompt rebuilt for every request is counted once", async () => {
    const counter = await TokenCounter.forModel("openai/gpt-4o")
    const prompt = (tools: string) =>
      `You are a troubleshooting agent.\n${"Rules: be brief, cite logs. ".repeat(40)}${tools}`
    const first = counter.countMessage({ role: "system", content: prompt("kubectl") })
    const hits = counter.stats.textHits
    // A new object and a new string with the same text: no re-tokenizing, the same count.
    expect(counter.countMessage({ role: "system", content: prompt("kubectl") })).toBe(first)
    expect(counter.stats.textHits - hits).toBe(1)
    // Different text is counted afresh.
    expect(counter.countMessage({ role: "system", content: prompt("helm") })).toBe(
      4 + rawCount("o200k_base", prompt("helm")),
    )
    expect(counter.stats.textHits - hits).toBe(1)
    // Short texts are counted directly: hashing them would cost as much.
    counter.countText("hello world")
    counter.countText("hello world")
    expect(counter.stats.textHits - hits).toBe(1)
  })

  test("holds a bounded number of characters, dropping the least recently used first", () => {
    const cache = new TextCounts()
    const text = (i: number) => `${String(i).padStart(6, "0")} ${"x".repeat(200_000)}`
    cache.set(text(0), 0)
    // 40 texts of 200 KB: past the 4 Mi-unit cap, while text 0 is used again and again.
    for (let i = 1; i <= 40; i++) {
      cache.set(text(i), i)
      expect(cache.get(text(0))).toBe(0)
    }
    expect(cache.get(text(40))).toBe(40)
    expect(cache.get(text(1))).toBeUndefined()
    expect(cache.get(text(5))).toBeUndefined()
    expect(TextCounts.accepts("x".repeat(511))).toBe(false)
    expect(TextCounts.accepts("x".repeat(512))).toBe(true)
    expect(TextCounts.accepts("x".repeat(10_000_000))).toBe(false)
  })
})
