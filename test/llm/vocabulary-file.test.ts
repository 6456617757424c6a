import { expect, test } from "bun:test"
import { Tiktoken } from "js-tiktoken/lite"
import cl100k from "js-tiktoken/ranks/cl100k_base"
import o200k from "js-tiktoken/ranks/o200k_base"
import { BytePairEncoder } from "../../src/llm/bpe.ts"
import { buildVocabulary, drain, type Vocabulary } from "../../src/llm/bpe-vocabulary.ts"
import { buildVocabularyFile, decodeVocabulary, encodeVocabulary } from "../../src/llm/vocabulary-file.ts"

const TEXT = "kubectl get pods -n kube-system | grep CrashLoopBackOff 🚀 données 日本語 <|endoftext|>"

const bytesOf = (array: Uint8Array | Uint32Array | Int32Array) =>
  Buffer.from(array.buffer, array.byteOffset, array.byteLength)

function expectSame(read: Vocabulary, built: Vocabulary): void {
  expect(bytesOf(read.bytes).equals(bytesOf(built.bytes))).toBe(true)
  expect(bytesOf(read.starts).equals(bytesOf(built.starts))).toBe(true)
  expect(bytesOf(read.table).equals(bytesOf(built.table))).toBe(true)
  expect(read.pattern).toBe(built.pattern)
  expect(read.specials).toEqual(built.specials)
}

// The compiled binary reads what build.ts wrote with buildVocabularyFile: it must be, byte for byte,
// the vocabulary built from the ranks at run time (whose ids bpe.test.ts checks against js-tiktoken's).
for (const [encoding, ranks] of [
  ["o200k_base", o200k],
  ["cl100k_base", cl100k],
] as const) {
  test(`the file build.ts embeds for ${encoding} reads back as the vocabulary built from its ranks`, async () => {
    const file = await buildVocabularyFile(encoding)
    const read = decodeVocabulary(file.buffer as ArrayBuffer)
    expectSame(read, drain(buildVocabulary(ranks)))
    expect(new BytePairEncoder(read).encode(TEXT)).toEqual(new Tiktoken(ranks).encode(TEXT, [], []))
  }, 60_000)
}

test("a vocabulary file cut short or with bytes after its arrays is refused", () => {
  const file = encodeVocabulary(drain(buildVocabulary(cl100k)))
  expect(() => decodeVocabulary(file.slice(0, file.length - 4).buffer)).toThrow(RangeError)
  const longer = new Uint8Array(file.length + 4)
  longer.set(file)
  expect(() => decodeVocabulary(longer.buffer)).toThrow("4 bytes after the arrays")
})
