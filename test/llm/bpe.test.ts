import { describe, expect, test } from "bun:test"
import { Tiktoken } from "js-tiktoken/lite"
import cl100k from "js-tiktoken/ranks/cl100k_base"
import o200k from "js-tiktoken/ranks/o200k_base"
import { BytePairEncoder } from "../../src/llm/bpe.ts"
import { buildVocabulary, drain, rankOf } from "../../src/llm/bpe-vocabulary.ts"
import { jsonPods, logLines, podTable, prng, yamlManifest } from "../bench/support/corpus.ts"

// The library is the reference: every id, on both encodings, must be the one it gives.
const ENCODINGS = [
  ["o200k_base", o200k],
  ["cl100k_base", cl100k],
] as const

type LibraryMaps = { rankMap: Map<string, number>; textMap: Map<number, Uint8Array> }

const rand = prng(11)

const CODE = `import { readFile } from "node:fs/promises"

export async function load(path: string): Promise<Config> {
  const text = await readFile(path, "utf8")
  if (!text.trim()) throw new ConfigError(\`\${path} is empty\`)
  return { ...defaults, ...JSON.parse(text) } // TODO: validate
}

def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)\r\n\tprint([fib(i) for i in range(10)])
`

const CORPUS: Record<string, string> = {
  english:
    "The pod was OOMKilled twice in the last hour; it's likely the JVM's heap isn't capped. We'll " +
    "raise the limit to 1Gi and they'd've seen it sooner if the alert HADN'T been muted. I'M sure.",
  code: CODE,
  json: jsonPods(rand, 4),
  yaml: yamlManifest(rand),
  logs: logLines(rand, 80),
  kubectl: podTable(rand, 40),
  whitespace: `a  b\t\tc \r\n\r\n  d   \n\n\n    e\u00a0\u2028\u3000 ${" ".repeat(70)}x\n${"\t".repeat(20)}\n \n`,
  cjk: "日本語のテキストを数えます。東京都渋谷区。中文文本：容器因内存不足被终止。한국어 텍스트: 파드가 재시작됩니다.",
  emoji: "deploy 🚀 ok ✅ 👩‍👩‍👧‍👦 family 🇫🇷🇯🇵 👍🏽 🧑‍💻 ⚠️ 😀😃😄",
  combining:
    "e\u0301 a\u0308\u0304 Z\u0351\u0352\u0353a\u036b\u036c\u036dl\u0316\u0317g\u0300o ﬁ ǅ नमस्ते สวัสดี مرحبا ١٢٣",
  surrogates: "lone \ud800 high, \udfff low, x\ud83dy, \ude00\ud83d reversed, end \ud800",
  specials: "<|endoftext|> text <|endofprompt|><|fim_prefix|>x<|fim_middle|><|fim_suffix|> <|endoftext|>",
  bom: "\ufeffstarts with a byte order mark \ufeff and has one inside",
}

/** Random bytes read as UTF-8: replacement characters among stray ASCII and partial sequences. */
function randomByteTexts(seed: number, count: number): string[] {
  const r = prng(seed)
  const decoder = new TextDecoder()
  return Array.from({ length: count }, () =>
    decoder.decode(Uint8Array.from({ length: 1 + Math.floor(r() * 80) }, () => Math.floor(r() * 256))),
  )
}

/** Random code points from every plane, lone surrogates and controls included. */
function randomUnicodeTexts(seed: number, count: number): string[] {
  const r = prng(seed)
  const ranges = [
    [0x20, 0x7e],
    [0x00, 0x20],
    [0x80, 0x7ff],
    [0x800, 0xd7ff],
    [0xd800, 0xdfff],
    [0xe000, 0xffff],
    [0x10000, 0x10ffff],
    [0x1f300, 0x1faff],
  ] as const
  return Array.from({ length: count }, () => {
    let text = ""
    for (let n = 1 + Math.floor(r() * 40); n > 0; n--) {
      const [lo, hi] = ranges[Math.floor(r() * ranges.length)]!
      const code = lo + Math.floor(r() * (hi - lo + 1))
      text += code > 0xffff ? String.fromCodePoint(code) : String.fromCharCode(code)
    }
    return text
  })
}

describe.each(ENCODINGS)("%s", (_name, ranks) => {
  const library = new Tiktoken(ranks)
  const vocabulary = drain(buildVocabulary(ranks))
  const encoder = new BytePairEncoder(vocabulary)
  const texts = [
    ...Object.values(CORPUS),
    ...randomByteTexts(1, 300),
    ...randomUnicodeTexts(2, 300),
    // Short runs of one character: the merge's leftmost-of-equal-ranks rule decides them.
    ..."a 1.é日🚀\n-".split("").flatMap((c) => [2, 3, 5, 8, 13, 33].map((n) => c.repeat(n))),
  ]

  test("holds the library's vocabulary, rank for rank", () => {
    const { rankMap, textMap } = library as unknown as LibraryMaps
    const bytes = new Uint8Array(256)
    for (const [key, rank] of rankMap) {
      const parts = key.split(",")
      for (let i = 0; i < parts.length; i++) bytes[i] = Number(parts[i])
      if (rankOf(vocabulary, bytes, 0, parts.length) !== rank) throw new Error(`rank of ${key}`)
    }
    for (const [rank, expected] of textMap) {
      const start = vocabulary.starts[rank]!
      const actual = vocabulary.bytes.subarray(start, vocabulary.starts[rank + 1])
      if (!Buffer.from(actual).equals(expected)) throw new Error(`bytes of ${rank}`)
    }
    expect(vocabulary.starts.length - 1).toBe(textMap.size)
    expect(vocabulary.bytes.length).toBe([...textMap.values()].reduce((sum, b) => sum + b.length, 0))
  })

  test("encodes every text to the library's ids", () => {
    for (const [name, text] of Object.entries(CORPUS)) {
      expect({ name, ids: encoder.encode(text) }).toEqual({ name, ids: library.encode(text, [], []) })
    }
    for (const text of texts) {
      expect({ text, ids: encoder.encode(text) }).toEqual({ text, ids: library.encode(text, [], []) })
    }
  })

  test("encodes each piece of the split as the library does within the whole text", () => {
    const pattern = new RegExp(encoder.pattern, "gu")
    for (const text of texts) {
      const ids = [...text.matchAll(pattern)].flatMap((match) => encoder.encodePiece(match[0]))
      expect({ text, ids }).toEqual({ text, ids: library.encode(text, [], []) })
      const count = [...text.matchAll(pattern)].reduce((sum, match) => sum + encoder.countPiece(match[0]), 0)
      expect(count).toBe(ids.length)
    }
  })

  test("decodes what it encodes back to the text, lone surrogates as U+FFFD", () => {
    for (const text of texts) {
      // The library's decoder drops a leading byte order mark, and so does this one.
      const expected = text.toWellFormed().replace(/^\ufeff/, "")
      expect({ text, decoded: encoder.decode(encoder.encode(text)) }).toEqual({ text, decoded: expected })
    }
  })

  test("decodes any slice of tokens, and any ids, as the library does", () => {
    const r = prng(3)
    const all = Object.values(CORPUS).flatMap((text) => encoder.encode(text))
    for (let i = 0; i < 500; i++) {
      const start = Math.floor(r() * all.length)
      const slice = all.slice(start, start + 1 + Math.floor(r() * 12))
      expect({ slice, text: encoder.decode(slice) }).toEqual({ slice, text: library.decode(slice) })
    }
    // Specials decode to their text; ids that are no token are skipped.
    const top = vocabulary.starts.length
    const odd = [...Object.values(ranks.special_tokens), top - 2, top - 1, top, top + 30, -1, 1.5, 0]
    for (let i = 0; i < 200; i++) {
      const ids = Array.from({ length: 1 + Math.floor(r() * 6) }, () =>
        r() < 0.5 ? odd[Math.floor(r() * odd.length)]! : Math.floor(r() * top),
      )
      expect({ ids, text: encoder.decode(ids) }).toEqual({ ids, text: library.decode(ids) })
    }
  })
})
