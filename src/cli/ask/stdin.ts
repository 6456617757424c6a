import type { AttachedFile } from "../../agent/prompt/build.ts"

/** Bytes of piped input that reach the prompt, like an attached file. */
const MAX_STDIN_BYTES = 1_000_000

/** Piped stdin as an attachment named "stdin" (the `files` section), or undefined when empty. */
export async function readPipedStdin(): Promise<AttachedFile | undefined> {
  const bytes = new Uint8Array(await Bun.stdin.arrayBuffer())
  if (bytes.length === 0) return undefined
  const cut = bytes.length > MAX_STDIN_BYTES
  const text = new TextDecoder().decode(cut ? bytes.subarray(0, MAX_STDIN_BYTES) : bytes)
  if (text.trim() === "") return undefined
  return { name: "stdin", content: cut ? `${text}\n[TRUNCATED]` : text }
}
