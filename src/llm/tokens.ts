/**
 * Token accounting with tiktoken's encodings. Exact for OpenAI models, a close estimate for others
 * (their tokenizers are private; o200k_base is the nearest public one). The vocabulary is built
 * lazily on first use, off the event loop, and once per encoding per process (encoder-build.ts).
 *
 * Counts are cached at three levels: per message object (the agent loop re-counts the whole
 * history after every step, and only the new messages should cost anything), per text of 512+
 * characters by content (a system prompt rebuilt for every request), and per pre-tokenizer piece
 * (token-memo.ts). Messages are treated as immutable; a changed message must be a new object (the
 * cache also checks content and tool-call identity).
 */
import { Slicer } from "../offloop/yield.ts"
import type { BytePairEncoder } from "./bpe.ts"
import type { EncodingName } from "./bpe-vocabulary.ts"
import { buildEncoder } from "./encoder-build.ts"
import { type Cut, isHighSurrogate, PieceCounter, TextCounts } from "./token-memo.ts"
import type { ChatMessage, ToolSchema } from "./types.ts"

export type { EncodingName }

/** Service-side token counts by role (spec "Metadata object"). */
export type TokenCounts = {
  total_tokens: number
  tools_tokens: number
  system_tokens: number
  user_tokens: number
  tools_to_call_tokens: number
  assistant_tokens: number
  other_tokens: number
}

/** Per-message framing the chat format adds around each message (role, separators). */
const MESSAGE_OVERHEAD = 4
/** Framing per tool call inside an assistant message. */
const TOOL_CALL_OVERHEAD = 3
/** An image's cost depends on its size, which we do not decode; this is a high-detail tile budget. */
export const IMAGE_TOKENS = 765
const LOW_DETAIL_IMAGE_TOKENS = 85
/** Text longer than this many characters per token cannot fit; bounds encoding work. */
const MAX_CHARS_PER_TOKEN = 8
/** Characters per token of an estimate: about what o200k_base gives English text and logs. */
export const ESTIMATE_CHARS_PER_TOKEN = 4

/** Tokens of `chars` characters of text, estimated without tokenizing. */
export function estimateTokens(chars: number): number {
  return Math.ceil(chars / ESTIMATE_CHARS_PER_TOKEN)
}

/** cl100k_base for the gpt-4 / gpt-3.5 generation, o200k_base for everything newer or non-OpenAI. */
export function encodingForModel(id: string): EncodingName {
  const name = id.slice(id.lastIndexOf("/") + 1).toLowerCase()
  return /^gpt-4(-|$)|^gpt-3\.5/.test(name) && !/^gpt-4-?o/.test(name) ? "cl100k_base" : "o200k_base"
}

type MessageCount = { content: number; toolCalls: number; contentRef: unknown; toolCallsRef: unknown }

export class TokenCounter {
  private static readonly counters = new Map<EncodingName, Promise<TokenCounter>>()

  /** Shared per encoding, so the per-message cache survives across requests. */
  static forModel(id: string): Promise<TokenCounter> {
    const encoding = encodingForModel(id)
    let counter = TokenCounter.counters.get(encoding)
    if (!counter) {
      counter = buildEncoder(encoding).then(
        (encoder) => new TokenCounter(encoding, encoder, new PieceCounter(encoder)),
      )
      // A failed load must not poison every later call.
      counter.catch(() => TokenCounter.counters.delete(encoding))
      TokenCounter.counters.set(encoding, counter)
    }
    return counter
  }

  private readonly messages = new WeakMap<object, MessageCount>()
  private readonly texts = new TextCounts()
  private readonly schemas = new WeakMap<object, number>()
  /** Cache statistics, for tests and debug logs: message objects hit and missed, texts hit by content. */
  readonly stats = { hits: 0, misses: 0, textHits: 0 }

  private constructor(
    readonly encoding: EncodingName,
    private readonly encoder: BytePairEncoder,
    private readonly pieces: PieceCounter,
  ) {}

  /**
   * Tokens of `text` as ordinary text (special-token strings included). Exact, except inside a run
   * of more than 128 characters that the tokenizer would take as one piece: it is counted in slices.
   */
  countText(text: string): number {
    if (!text) return 0
    if (!TextCounts.accepts(text)) return this.pieces.count(text)
    const cached = this.texts.get(text)
    if (cached !== undefined) {
      this.stats.textHits++
      return cached
    }
    const n = this.pieces.count(text)
    this.texts.set(text, n)
    return n
  }

  /**
   * Counts the messages not counted yet, so later `tally` calls find them cached, without holding
   * the event loop: a client's `conversation_history` of 18 MB held /healthz for 23 s (finding R2,
   * with js-tiktoken at about 1 MB/s), and at bpe.ts's 20 MB/s it would still hold it for a second.
   * The newest messages are counted exactly, a slice at a time, up to `exactChars` characters (a
   * window's worth: more cannot be sent anyway); older ones are estimated from their length. Call
   * it before the loop's synchronous counting of a history that came from outside.
   */
  async prime(messages: readonly ChatMessage[], exactChars: number, signal?: AbortSignal): Promise<void> {
    const slicer = new Slicer(signal)
    let exact = exactChars
    for (let i = messages.length - 1; i >= 0; i--) {
      const message = messages[i]
      if (!message || this.isCounted(message)) continue
      const texts = textsOf(message)
      const size = texts.reduce((sum, t) => sum + t.length, 0)
      const counts = new Map<string, number>()
      if (size <= exact) {
        exact -= size
        for (const text of texts) {
          if (!counts.has(text)) counts.set(text, await this.countTextSliced(text, slicer))
        }
      } else {
        exact = 0
        for (const text of texts) counts.set(text, estimateTokens(text.length))
      }
      this.countParts(message, (text) => counts.get(text) ?? this.countText(text))
      await slicer.tick()
    }
  }

  /** `countText`, a slice at a time (see `prime`). */
  async countTextSliced(text: string, slicer: Slicer): Promise<number> {
    if (!text) return 0
    const cached = TextCounts.accepts(text) ? this.texts.get(text) : undefined
    if (cached !== undefined) return cached
    const n = await this.pieces.countSliced(text, slicer)
    if (TextCounts.accepts(text)) this.texts.set(text, n)
    return n
  }

  countMessage(message: ChatMessage): number {
    const counted = this.countParts(message)
    return counted.content + counted.toolCalls
  }

  /** The history's counts by role (spec "Metadata object"); `total_tokens` is the sum of the rest. */
  tally(messages: readonly ChatMessage[], tools: readonly ToolSchema[] = []): TokenCounts {
    const counts = this.#emptyCounts(tools)
    for (const message of messages) this.#addMessage(counts, message)
    return withTotal(counts)
  }

  /**
   * `tally`, with a turn for the event loop every few hundred messages: a client's history can
   * be 300,000 messages, whose cached counts alone take 50-70 ms to add up (finding R2).
   */
  async tallySliced(
    messages: readonly ChatMessage[],
    tools: readonly ToolSchema[],
    signal?: AbortSignal,
  ): Promise<TokenCounts> {
    const counts = this.#emptyCounts(tools)
    const slicer = new Slicer(signal)
    for (const [i, message] of messages.entries()) {
      this.#addMessage(counts, message)
      if (i % 512 === 511) await slicer.tick()
    }
    return withTotal(counts)
  }

  #emptyCounts(tools: readonly ToolSchema[]): TokenCounts {
    return {
      total_tokens: 0,
      tools_tokens: this.countTools(tools),
      system_tokens: 0,
      user_tokens: 0,
      tools_to_call_tokens: 0,
      assistant_tokens: 0,
      other_tokens: 0,
    }
  }

  #addMessage(counts: TokenCounts, message: ChatMessage): void {
    const { content, toolCalls } = this.countParts(message)
    if (message.role === "system") counts.system_tokens += content
    else if (message.role === "user") counts.user_tokens += content
    else if (message.role === "assistant") {
      counts.assistant_tokens += content
      counts.tools_to_call_tokens += toolCalls
    } else counts.other_tokens += content
  }

  /**
   * Tool definitions as sent; cached by array identity (toolsets build the array once) and by
   * schema object (the deferred-tools plan asks one schema at a time, in a fresh array each time).
   */
  countTools(tools: readonly ToolSchema[]): number {
    if (tools.length === 0) return 0
    const cached = this.schemas.get(tools)
    if (cached !== undefined) return cached
    let total = 0
    for (const tool of tools) {
      let size = this.schemas.get(tool)
      if (size === undefined) {
        size = MESSAGE_OVERHEAD + this.countText(JSON.stringify(tool.function))
        this.schemas.set(tool, size)
      }
      total += size
    }
    this.schemas.set(tools, total)
    return total
  }

  /**
   * The longest prefix of `text` that fits in `maxTokens`, cut at a token boundary. Only the
   * first maxTokens·8 characters are ever tokenized, so a multi-megabyte tool output costs no more
   * than a small one.
   */
  truncateToTokens(text: string, maxTokens: number): string {
    if (maxTokens <= 0) return ""
    const bounded = boundedFor(text, maxTokens)
    return this.keep(text, bounded, this.pieces.cut(bounded, maxTokens))
  }

  /** `truncateToTokens`, a slice at a time: for tool output, which can be megabytes. */
  async truncateToTokensSliced(text: string, maxTokens: number, slicer: Slicer): Promise<string> {
    if (maxTokens <= 0) return ""
    const bounded = boundedFor(text, maxTokens)
    return this.keep(text, bounded, await this.pieces.cutSliced(bounded, maxTokens, slicer))
  }

  /** What `truncateToTokens` keeps of `text`, given where its budget ran out in `bounded`. */
  private keep(text: string, bounded: string, cut: Cut | undefined): string {
    if (!cut) return bounded
    // Whole pieces before the cut are kept as they are; only the piece it falls in is decoded.
    const { start, piece, room } = cut
    if (room === 0) return text.slice(0, start)
    const partial = this.encoder.decode(this.pieces.tokens(piece).slice(0, room))
    if (piece.startsWith(partial)) return text.slice(0, start + partial.length)
    // A cut inside a multi-byte character decodes to U+FFFD: keep only what matches the original,
    // without leaving half a surrogate pair.
    let end = 0
    while (end < partial.length && partial.charCodeAt(end) === piece.charCodeAt(end)) end++
    if (end > 0 && isHighSurrogate(piece.charCodeAt(end - 1))) end--
    return text.slice(0, start + end)
  }

  private isCounted(message: ChatMessage): boolean {
    const cached = this.messages.get(message)
    const toolCallsRef = message.role === "assistant" ? message.tool_calls : undefined
    return (
      cached !== undefined && cached.contentRef === message.content && cached.toolCallsRef === toolCallsRef
    )
  }

  private countParts(
    message: ChatMessage,
    countText: (text: string) => number = (text) => this.countText(text),
  ): MessageCount {
    const toolCallsRef = message.role === "assistant" ? message.tool_calls : undefined
    const cached = this.messages.get(message)
    if (cached && cached.contentRef === message.content && cached.toolCallsRef === toolCallsRef) {
      this.stats.hits++
      return cached
    }
    this.stats.misses++
    let content = MESSAGE_OVERHEAD
    if (typeof message.content === "string") content += countText(message.content)
    else if (Array.isArray(message.content)) {
      for (const part of message.content) {
        if (part.type === "text") content += countText(part.text)
        else content += part.image_url.detail === "low" ? LOW_DETAIL_IMAGE_TOKENS : IMAGE_TOKENS
      }
    }
    let toolCalls = 0
    for (const call of toolCallsRef ?? []) {
      toolCalls += TOOL_CALL_OVERHEAD + countText(call.function.name) + countText(call.function.arguments)
    }
    const counted: MessageCount = { content, toolCalls, contentRef: message.content, toolCallsRef }
    this.messages.set(message, counted)
    return counted
  }
}

/** Only the first maxTokens·8 characters can fit: the rest is never tokenized. */
function boundedFor(text: string, maxTokens: number): string {
  return text.length > maxTokens * MAX_CHARS_PER_TOKEN ? text.slice(0, maxTokens * MAX_CHARS_PER_TOKEN) : text
}

/** The texts of a message that are counted: its content's text parts and its tool calls' names and arguments. */
function textsOf(message: ChatMessage): string[] {
  const texts: string[] = []
  if (typeof message.content === "string") texts.push(message.content)
  else if (Array.isArray(message.content)) {
    for (const part of message.content) if (part.type === "text") texts.push(part.text)
  }
  if (message.role === "assistant") {
    for (const call of message.tool_calls ?? []) texts.push(call.function.name, call.function.arguments)
  }
  return texts
}

function withTotal(counts: TokenCounts): TokenCounts {
  counts.total_tokens =
    counts.tools_tokens +
    counts.system_tokens +
    counts.user_tokens +
    counts.tools_to_call_tokens +
    counts.assistant_tokens +
    counts.other_tokens
  return counts
}
