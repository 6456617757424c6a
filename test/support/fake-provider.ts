/**
 * A fake OpenAI-compatible chat-completions server on a real loopback port. Tests drive dupin
 * through the real `openai` client against it, so the wire format (headers, bodies, status codes,
 * dropped connections) is exercised exactly as with a real provider.
 *
 * Every test owns its instance: no global state, and `stop()` closes it, releasing hung requests.
 */

export type RecordedRequest = {
  method: string
  path: string
  /** The query string, with its leading `?` (or empty). */
  search: string
  headers: Record<string, string>
  /** The parsed JSON body; `null` when the body is empty or not JSON. */
  body: Record<string, unknown> | null
}

export type FakeToolCall = {
  id?: string
  name: string
  /** An object is JSON-encoded; a string is sent as is (to send malformed JSON). */
  arguments: Record<string, unknown> | string
}

export type FakeUsage = { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number }

export type FakeStep = {
  content?: string | null
  /** Sent as `reasoning_content` on the message (DeepSeek style). */
  reasoning?: string
  toolCalls?: FakeToolCall[]
  finishReason?: string
  /** Overrides the default usage; `null` omits the `usage` field entirely. */
  usage?: FakeUsage | null
  /** HTTP status. With no `body`, a status >= 400 gets an OpenAI-style error body. */
  status?: number
  headers?: Record<string, string>
  /** Sent instead of a completion: an object as JSON, a string verbatim (to send broken JSON). */
  body?: unknown
  delayMs?: number
  /** Never answers, until the client aborts or the server stops. */
  hang?: boolean
  /** Starts the response, then drops the connection mid-body. */
  reset?: boolean
  /**
   * A streamed request (`stream: true`) gets the content in these pieces, one SSE chunk each.
   * Default: the content split after each space. Ignored for non-streamed requests.
   */
  chunks?: string[]
  /** Pause before each streamed content chunk (a model writing slowly). */
  chunkDelayMs?: number
  /**
   * Streams this many content chunks, then holds the connection until the client aborts (or, with
   * `resumeWhen`, until that settles, then streams the rest).
   */
  hangAfterChunks?: number
  resumeWhen?: Promise<unknown>
}

export type FakeStepInput = FakeStep | ((request: RecordedRequest) => FakeStep | Promise<FakeStep>)

export type FakeProvider = {
  /** Base URL including `/v1`, ready for `baseURL`. */
  url: string
  requests: RecordedRequest[]
  /** Appends steps; each chat-completions request consumes one, in order. */
  script(...steps: FakeStepInput[]): void
  /** Steps not consumed yet. */
  pending(): number
  stop(): Promise<void>
}

export type FakeProviderOptions = { models?: string[] }

// Bounds so a runaway test loop cannot eat the machine's memory.
const MAX_RECORDED = 1000
const MAX_BODY_BYTES = 50_000_000
const DEFAULT_USAGE = { prompt_tokens: 10, completion_tokens: 5 }

export async function startFakeProvider(options: FakeProviderOptions = {}): Promise<FakeProvider> {
  const queue: FakeStepInput[] = []
  const requests: RecordedRequest[] = []
  const stopped = new AbortController()
  let completionCounter = 0
  let callCounter = 0

  const models = options.models ?? ["fake-model"]

  async function handleCompletion(request: RecordedRequest, signal: AbortSignal): Promise<Response> {
    const input = queue.shift()
    if (!input) {
      return json(500, {
        error: { message: "fake provider: script exhausted", type: "server_error", code: "script_exhausted" },
      })
    }
    const step = typeof input === "function" ? await input(request) : input
    if (step.delayMs) await sleep(step.delayMs, AbortSignal.any([signal, stopped.signal]))
    if (step.hang) {
      await sleep(Number.POSITIVE_INFINITY, AbortSignal.any([signal, stopped.signal]))
      return json(500, { error: { message: "fake provider: hang released", type: "server_error" } })
    }
    if (step.reset) return resetResponse()
    const status = step.status ?? 200
    if (step.body !== undefined) return raw(status, step.body, step.headers)
    if (status >= 400) {
      return raw(
        status,
        { error: { message: `fake provider error ${status}`, type: "fake_error", code: null } },
        step.headers,
      )
    }
    completionCounter++
    if (request.body?.stream === true) {
      const body = completionBody(step, request, completionCounter, () => `call_${++callCounter}`)
      return streamedResponse(step, body, request, AbortSignal.any([signal, stopped.signal]))
    }
    return raw(
      status,
      completionBody(step, request, completionCounter, () => `call_${++callCounter}`),
      step.headers,
    )
  }

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    // Hang and delay steps hold requests open far longer than Bun's 10 s idle default.
    idleTimeout: 0,
    maxRequestBodySize: MAX_BODY_BYTES,
    async fetch(req) {
      const url = new URL(req.url)
      const text = await req.text()
      const recorded: RecordedRequest = {
        method: req.method,
        path: url.pathname,
        search: url.search,
        headers: Object.fromEntries(req.headers.entries()),
        body: parseObject(text),
      }
      if (requests.length < MAX_RECORDED) requests.push(recorded)
      try {
        if (req.method === "GET" && url.pathname.endsWith("/models")) {
          return json(200, {
            object: "list",
            data: models.map((id) => ({ id, object: "model", created: 0, owned_by: "fake" })),
          })
        }
        if (req.method === "POST" && url.pathname.endsWith("/chat/completions")) {
          return await handleCompletion(recorded, req.signal)
        }
        return json(404, {
          error: { message: `fake provider: no route ${req.method} ${url.pathname}`, type: "not_found" },
        })
      } catch (error) {
        return json(500, { error: { message: `fake provider: ${String(error)}`, type: "server_error" } })
      }
    },
  })

  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    requests,
    script: (...steps) => {
      queue.push(...steps)
    },
    pending: () => queue.length,
    stop: async () => {
      stopped.abort()
      await server.stop(true)
    },
  }
}

function completionBody(
  step: FakeStep,
  request: RecordedRequest,
  n: number,
  nextCallId: () => string,
): Record<string, unknown> {
  const toolCalls = step.toolCalls?.map((call) => ({
    id: call.id ?? nextCallId(),
    type: "function",
    function: {
      name: call.name,
      arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
    },
  }))
  const message: Record<string, unknown> = {
    role: "assistant",
    content: step.content === undefined ? (toolCalls ? null : "") : step.content,
  }
  if (toolCalls?.length) message.tool_calls = toolCalls
  if (step.reasoning !== undefined) message.reasoning_content = step.reasoning
  const body: Record<string, unknown> = {
    id: `chatcmpl-fake-${n}`,
    object: "chat.completion",
    created: 1_700_000_000 + n,
    model: typeof request.body?.model === "string" ? request.body.model : "fake-model",
    choices: [
      { index: 0, message, finish_reason: step.finishReason ?? (toolCalls?.length ? "tool_calls" : "stop") },
    ],
  }
  if (step.usage !== null) {
    const prompt = step.usage?.prompt_tokens ?? DEFAULT_USAGE.prompt_tokens
    const completion = step.usage?.completion_tokens ?? DEFAULT_USAGE.completion_tokens
    body.usage = {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: step.usage?.total_tokens ?? prompt + completion,
    }
  }
  return body
}

/**
 * The completion as OpenAI streams it: SSE `data:` chunks with deltas (role, reasoning, content
 * pieces, each tool call's name then its arguments in two halves), the finish reason, the usage
 * in a last chunk without choices when `stream_options.include_usage` asked for it, `[DONE]`.
 */
function streamedResponse(
  step: FakeStep,
  completion: Record<string, unknown>,
  request: RecordedRequest,
  signal: AbortSignal,
): Response {
  const choice = (completion.choices as Record<string, unknown>[])[0] ?? {}
  const message = choice.message as Record<string, unknown>
  const content = typeof message.content === "string" ? message.content : ""
  const pieces = step.chunks ?? (content ? content.split(/(?<= )/) : [])
  const calls = (message.tool_calls ?? []) as { id: string; function: { name: string; arguments: string } }[]
  const base = {
    id: completion.id,
    object: "chat.completion.chunk",
    created: completion.created,
    model: completion.model,
  }
  const chunk = (delta: Record<string, unknown>, finish: unknown = null) =>
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
  const options = request.body?.stream_options as { include_usage?: unknown } | undefined
  const encoder = new TextEncoder()
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (text: string) => controller.enqueue(encoder.encode(text))
      try {
        send(chunk({ role: "assistant", content: "" }))
        if (typeof message.reasoning_content === "string")
          send(chunk({ reasoning_content: message.reasoning_content }))
        for (const [n, piece] of pieces.entries()) {
          if (step.hangAfterChunks !== undefined && n === step.hangAfterChunks) {
            if (!step.resumeWhen) {
              await sleep(Number.POSITIVE_INFINITY, signal)
              controller.close()
              return
            }
            await Promise.race([step.resumeWhen, sleep(Number.POSITIVE_INFINITY, signal)])
          }
          if (step.chunkDelayMs) await sleep(step.chunkDelayMs, signal)
          if (signal.aborted) return controller.close()
          send(chunk({ content: piece }))
        }
        for (const [index, call] of calls.entries()) {
          const half = Math.floor(call.function.arguments.length / 2)
          send(
            chunk({
              tool_calls: [
                {
                  index,
                  id: call.id,
                  type: "function",
                  function: { name: call.function.name, arguments: call.function.arguments.slice(0, half) },
                },
              ],
            }),
          )
          send(
            chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments.slice(half) } }] }),
          )
        }
        send(chunk({}, choice.finish_reason))
        if (options?.include_usage === true && completion.usage !== undefined) {
          send(`data: ${JSON.stringify({ ...base, choices: [], usage: completion.usage })}\n\n`)
        }
        send("data: [DONE]\n\n")
        controller.close()
      } catch {
        // The client went away mid-stream.
      }
    },
  })
  return new Response(stream, { status: 200, headers: { "content-type": "text/event-stream" } })
}

function parseObject(text: string): Record<string, unknown> | null {
  if (!text) return null
  try {
    const value: unknown = JSON.parse(text)
    return value && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null
  } catch {
    return null
  }
}

function json(status: number, body: unknown): Response {
  return raw(status, body)
}

function raw(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  const text = typeof body === "string" ? body : JSON.stringify(body)
  return new Response(text, { status, headers: { "content-type": "application/json", ...headers } })
}

// A body that errors after its first chunk: Bun then tears the connection down mid-response,
// which the client sees as a dropped connection, not as an HTTP status. The error reason is
// `undefined` because Bun prints any Error reason to stderr, which would litter test output.
function resetResponse(): Response {
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      controller.enqueue(new TextEncoder().encode('{"id":"chatcmpl-reset","choices":['))
      controller.error(undefined)
    },
  })
  return new Response(stream, { status: 200, headers: { "content-type": "application/json" } })
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve()
    const timer = Number.isFinite(ms) ? setTimeout(done, ms) : undefined
    function done(): void {
      clearTimeout(timer)
      signal.removeEventListener("abort", done)
      resolve()
    }
    signal.addEventListener("abort", done, { once: true })
  })
}
