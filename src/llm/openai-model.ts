/**
 * The one ChatModel that talks to real providers, through the openai SDK (the only place dupin
 * imports it). Retries are ours, not the SDK's, so that waits honour the caller's AbortSignal and
 * every failure ends as a classified ModelError (or AbortError when the caller gave up).
 */
import OpenAI, { AzureOpenAI } from "openai"
import { abortableSleep } from "../abort.ts"
import { AbortError } from "../errors.ts"
import { log } from "../log.ts"
import { redactKnown } from "../redact.ts"
import { classifyError, toModelError } from "./classify-error.ts"
import { displayURL } from "./providers.ts"
import { retryDelayMs } from "./retry.ts"
import { CompletionAssembler } from "./stream-assembly.ts"
import type { ChatModel, Completion, CompletionRequest, ModelInfo, TextListener } from "./types.ts"
import { fromWireResponse, toWireRequest } from "./wire.ts"

export type OpenAIChatModelOptions = {
  /** Display name (a modelList key, or the id). */
  name: string
  info: ModelInfo
  /** `null`: the server needs no key, and the calls carry no Authorization header. */
  apiKey: string | null
  baseURL: string
  /** What set `baseURL` (a variable, `api_base in the config`), named in provider errors. */
  baseURLFrom?: string
  /** Azure only: switches to deployment routing with this API version. */
  apiVersion?: string
  temperature?: number
  /** Per attempt. */
  timeoutMs?: number
  maxRetries?: number
  retryBaseDelayMs?: number
  /** Other secrets of the process (auth token, approval secret) to keep out of error texts. */
  secrets?: readonly string[]
}

export class OpenAIChatModel implements ChatModel {
  readonly name: string
  readonly info: ModelInfo
  private readonly client: OpenAI
  /** The model part of the id: what the provider calls it (for Azure, the deployment). */
  private readonly model: string
  private readonly temperature: number | undefined
  private readonly maxRetries: number
  private readonly retryBaseDelayMs: number
  /** Per attempt; for a streamed call, also the longest silence between two chunks. */
  private readonly timeoutMs: number
  /** `URL, set by SOURCE` for ModelError.endpoint. */
  private readonly endpoint: string
  /** Found and redacted verbatim in provider error texts (classify-error.ts). */
  private readonly secrets: readonly string[]

  constructor(options: OpenAIChatModelOptions) {
    this.name = options.name
    this.info = options.info
    this.model = options.info.id.slice(options.info.provider.length + 1)
    this.temperature = options.temperature
    this.maxRetries = Math.max(0, options.maxRetries ?? 3)
    this.retryBaseDelayMs = options.retryBaseDelayMs ?? 500
    this.timeoutMs = options.timeoutMs ?? 600_000
    this.secrets = [...(options.apiKey ? [options.apiKey] : []), ...(options.secrets ?? [])]
    const from = options.baseURLFrom ? `, set by ${options.baseURLFrom}` : ""
    this.endpoint = `${displayURL(options.baseURL)}${from}`
    const common = {
      // The SDK refuses to start without a key; a null Authorization header then keeps the
      // placeholder off the wire.
      apiKey: options.apiKey ?? "none",
      ...(options.apiKey === null ? { defaultHeaders: { Authorization: null } } : {}),
      timeout: this.timeoutMs,
      maxRetries: 0,
      // Explicit nulls stop the SDK from reading OPENAI_ORG_ID / OPENAI_PROJECT_ID itself.
      organization: null,
      project: null,
    }
    this.client =
      options.info.provider === "azure"
        ? new AzureOpenAI({
            ...common,
            // An explicit baseURL (rather than `endpoint`) keeps the SDK from picking up
            // OPENAI_BASE_URL from the process, which it would reject next to an endpoint.
            baseURL: azureBaseURL(options.baseURL),
            deployment: this.model,
            apiVersion: options.apiVersion,
          })
        : new OpenAI({ ...common, baseURL: options.baseURL })
  }

  async complete(
    request: CompletionRequest,
    signal?: AbortSignal,
    onText?: TextListener,
  ): Promise<Completion> {
    const body = toWireRequest(request, {
      provider: this.info.provider,
      model: this.model,
      temperature: this.temperature,
    })
    // Once text reached the caller, another attempt would write it twice: no retry after that.
    const progress = { wrote: false }
    for (let attempt = 0; ; attempt++) {
      if (signal?.aborted) throw new AbortError()
      const started = performance.now()
      try {
        const completion = onText
          ? await this.#streamed(body, signal, onText, progress)
          : fromWireResponse(await this.client.chat.completions.create(body, { signal }), this.info.id)
        log.debug("llm call", {
          model: this.info.id,
          attempt,
          ms: Math.round(performance.now() - started),
          finish_reason: completion.finishReason,
          ...completion.usage,
        })
        return completion
      } catch (error) {
        // The SDK reports our own abort as a provider error; the caller must see an abort.
        if (signal?.aborted) throw new AbortError()
        const failure = classifyError(error)
        if (!failure.retryable || attempt >= this.maxRetries || progress.wrote)
          throw Object.assign(toModelError(failure, this.info.id, attempt + 1, this.secrets), {
            endpoint: redactKnown(this.endpoint, this.secrets),
          })
        const delay = retryDelayMs(attempt, this.retryBaseDelayMs, failure.headers)
        log.warn("llm call failed, retrying", {
          model: this.info.id,
          attempt: attempt + 1,
          of: this.maxRetries + 1,
          kind: failure.kind,
          status: failure.status,
          delay_ms: delay,
        })
        await abortableSleep(delay, signal)
      }
    }
  }

  /** One streamed attempt (`stream: true`): text goes to `onText` as it arrives; usage comes last. */
  async #streamed(
    body: ReturnType<typeof toWireRequest>,
    signal: AbortSignal | undefined,
    onText: TextListener,
    progress: { wrote: boolean },
  ): Promise<Completion> {
    // The SDK's timeout ends when the headers arrive; a provider that stalls mid-stream is cut here.
    const stalled = new AbortController()
    const timer = setTimeout(() => stalled.abort(), this.timeoutMs)
    const both = signal ? AbortSignal.any([signal, stalled.signal]) : stalled.signal
    const assembler = new CompletionAssembler()
    try {
      const stream = await this.client.chat.completions.create(
        { ...body, stream: true, stream_options: { include_usage: true } },
        { signal: both },
      )
      for await (const chunk of stream) {
        timer.refresh()
        const text = assembler.push(chunk)
        if (text === undefined) continue
        progress.wrote = true
        onText(text)
      }
    } catch (error) {
      if (stalled.signal.aborted && !signal?.aborted) throw new OpenAI.APIConnectionTimeoutError()
      throw error
    } finally {
      clearTimeout(timer)
    }
    // The SDK ends an aborted stream quietly, as if the reply were complete.
    if (signal?.aborted) throw new AbortError()
    if (stalled.signal.aborted) throw new OpenAI.APIConnectionTimeoutError()
    return assembler.finish(this.info.id)
  }
}

/** Azure resources serve the OpenAI routes under `/openai`; accept the endpoint with or without it. */
function azureBaseURL(endpoint: string): string {
  const trimmed = endpoint.replace(/\/+$/, "")
  return trimmed.endsWith("/openai") ? trimmed : `${trimmed}/openai`
}
