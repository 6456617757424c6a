/**
 * A vocabulary as one file, built by build.ts and embedded in the compiled binary: a start then
 * reads ~4 MB into typed arrays (a few milliseconds) instead of parsing the ranks module's base64
 * in a worker (140–330 ms of CPU on a 2-core machine, competing with everything else a start does).
 *
 * Layout: the length of a JSON header as a little-endian u32, the header (pattern, specials and
 * the arrays' lengths), padding to a multiple of 4, then `table`, `starts` and `bytes` as they lie
 * in memory. Read back, the arrays are views into the one buffer read: nothing is copied or parsed
 * but the header. The arrays keep the host's byte order: every target build.ts builds for is
 * little-endian.
 */
import { buildVocabulary, drain, type EncodingName, loadRanks, type Vocabulary } from "./bpe-vocabulary.ts"

/** The folder the files sit in, in the build's temp folder and under the binary's root. */
export const VOCABULARY_DIR = "vocabulary"

type Header = {
  pattern: string
  specials: Record<string, number>
  table: number
  starts: number
  bytes: number
}

export function vocabularyFileName(encoding: EncodingName): string {
  return `${encoding}.bin`
}

/** The file of `encoding`'s vocabulary, from its ranks module: what build.ts embeds. */
export async function buildVocabularyFile(encoding: EncodingName): Promise<Uint8Array> {
  return encodeVocabulary(drain(buildVocabulary(await loadRanks(encoding))))
}

export function encodeVocabulary(vocabulary: Vocabulary): Uint8Array {
  const { table, starts, bytes, pattern, specials } = vocabulary
  const header: Header = {
    pattern,
    specials,
    table: table.length,
    starts: starts.length,
    bytes: bytes.length,
  }
  const json = new TextEncoder().encode(JSON.stringify(header))
  const arraysAt = alignTo4(4 + json.length)
  const file = new Uint8Array(arraysAt + table.byteLength + starts.byteLength + bytes.byteLength)
  new DataView(file.buffer).setUint32(0, json.length, true)
  file.set(json, 4)
  let at = arraysAt
  for (const array of [table, starts, bytes]) {
    file.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), at)
    at += array.byteLength
  }
  return file
}

/** The vocabulary in `file`, as views into it. */
export function decodeVocabulary(file: ArrayBuffer): Vocabulary {
  const jsonLength = new DataView(file).getUint32(0, true)
  const header = JSON.parse(new TextDecoder().decode(new Uint8Array(file, 4, jsonLength))) as Header
  // Each view throws a RangeError if the file is shorter than the header says.
  let at = alignTo4(4 + jsonLength)
  const table = new Int32Array(file, at, header.table)
  at += table.byteLength
  const starts = new Uint32Array(file, at, header.starts)
  at += starts.byteLength
  const bytes = new Uint8Array(file, at, header.bytes)
  at += bytes.byteLength
  if (at !== file.byteLength)
    throw new Error(`vocabulary file: ${file.byteLength - at} bytes after the arrays`)
  return { bytes, starts, table, pattern: header.pattern, specials: header.specials }
}

/**
 * `encoding`'s vocabulary from the file build.ts embedded in the binary: build.ts passes its
 * folder as an asset, which the binary holds under its root by the folder's own name.
 */
export async function readEmbeddedVocabulary(encoding: EncodingName): Promise<Vocabulary> {
  const path = `${import.meta.dir}/${VOCABULARY_DIR}/${vocabularyFileName(encoding)}`
  return decodeVocabulary(await Bun.file(path).arrayBuffer())
}

function alignTo4(n: number): number {
  return (n + 3) & ~3
}
