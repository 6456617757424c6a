import type { StreamMessage } from "../agent/events.ts"
import { AbortError, DupinError, ModelError } from "../errors.ts"
import { log } from "../log.ts"
import { logModelError } from "./errors.ts"
import { ClientGone, ServerShuttingDown } from "./runs.ts"

/** Proxies commonly drop a connection idle for 60 s; a comment every 15 s keeps it open. */
export const DEFAULT_PING_INTERVAL_MS = 15_000

export type StreamOutcome = "completed" | "failed" | "client_gone" | "shutdown"

export type SseOptions = {
  /** Aborting it stops the run; the stream aborts it when the client goes away. */
  abort: AbortController
  pingIntervalMs?: number
  /** Called once, when the stream is over, with how it ended and the error code if it failed. */
  onClose?: (outcome: StreamOutcome, errorCode?: number) => void
}

export const SSE_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  // nginx buffers proxied responses by default, which would hold events back.
  "x-accel-buffering": "no",
} as const

/**
 * Frames a run's events as SSE (CONTRACT §5). A hand-built ReadableStream rather than Elysia's
 * generator + `sse()`, for two things that route style cannot do:
 * - `: ping` comment lines while idle: `sse()` only writes `event:`/`data:` fields;
 * - stopping the run on disconnect: Elysia cancels a generator with `iterator.return()`, which an
 *   async generator only honours at its next `yield`, so a tool running for minutes would keep
 *   running for a client that is gone. Here the disconnect aborts the run's signal at once, which
 *   aborts the provider call and kills the tool process groups.
 * After the stream opens, a failure becomes the spec's `error` event and the stream ends.
 */
export function sseResponse(events: AsyncIterable<StreamMessage>, options: SseOptions): Response {
  return sseStream(events, options, frame)
}

/**
 * The same stream for another wire (AG-UI): `encode` frames each item. Such a face turns run
 * failures into its own last item, so the error path here is only a last resort.
 */
export function sseStream<T>(
  events: AsyncIterable<T>,
  options: SseOptions,
  encode: (item: T) => string,
): Response {
  const { abort } = options
  const interval = options.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS
  const encoder = new TextEncoder()
  let timer: ReturnType<typeof setTimeout> | undefined
  let open = true

  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const write = (text: string) => {
        if (!open) return
        try {
          controller.enqueue(encoder.encode(text))
        } catch {
          open = false
          return
        }
        clearTimeout(timer)
        timer = setTimeout(() => write(": ping\n\n"), interval)
      }
      const finish = (outcome: StreamOutcome, errorCode?: number) => {
        clearTimeout(timer)
        if (open) {
          open = false
          try {
            controller.close()
          } catch {
            // already closed by a cancel
          }
        }
        options.onClose?.(outcome, errorCode)
      }
      const pump = async () => {
        // The first ping is due one interval after the headers, like every later one.
        timer = setTimeout(() => write(": ping\n\n"), interval)
        try {
          for await (const message of events) write(encode(message))
          finish("completed")
        } catch (error) {
          const reason: unknown = abort.signal.aborted ? abort.signal.reason : undefined
          if (reason instanceof ClientGone) return finish("client_gone")
          const failure = reason instanceof ServerShuttingDown ? reason : error
          const message = errorEvent(failure)
          write(frame(message))
          finish(reason instanceof ServerShuttingDown ? "shutdown" : "failed", message.data.error_code)
        }
      }
      void pump()
    },
    cancel() {
      open = false
      clearTimeout(timer)
      if (!abort.signal.aborted) abort.abort(new ClientGone())
    },
  })
  return new Response(body, { status: 200, headers: SSE_HEADERS })
}

/** One SSE frame: the union tag as `event:`, the data as one line of JSON. */
export function frame(message: StreamMessage): string {
  return `event: ${message.event}\ndata: ${JSON.stringify(message.data)}\n\n`
}

type ErrorEvent = Extract<StreamMessage, { event: "error" }>

/** The spec's `error` event: 5204 for a provider rate limit, 1 for anything else. */
export function errorEvent(error: unknown): ErrorEvent {
  if (error instanceof ModelError) logModelError(error)
  if (error instanceof ModelError && error.kind === "rate_limit") {
    return {
      event: "error",
      data: { description: error.detail, error_code: 5204, msg: "Rate limit exceeded", success: false },
    }
  }
  if (error instanceof ModelError) {
    return {
      event: "error",
      data: { description: error.detail, error_code: 1, msg: "Model provider error", success: false },
    }
  }
  if (error instanceof DupinError || error instanceof AbortError) {
    return {
      event: "error",
      data: { description: error.message, error_code: 1, msg: "Request failed", success: false },
    }
  }
  log.error("chat stream failed", {
    error: error instanceof Error ? (error.stack ?? error.message) : String(error),
  })
  return {
    event: "error",
    data: { description: "Internal server error.", error_code: 1, msg: "Request failed", success: false },
  }
}
