import type { StreamMessage } from "../../agent/events.ts"
import { chatResponseBody } from "../../agent/response-body.ts"
import { READ_TOOL_OUTPUT } from "../../context/read-tool-output.ts"
import type { Runtime } from "../../runtime/runtime.ts"
import type { ApprovalSigner } from "../approvals.ts"
import type { ChatRequestBody } from "../chat-request.ts"
import { jsonResponse } from "../errors.ts"
import { piecewiseJsonResponse } from "../json-pieces.ts"
import { prepareChat } from "../prepare-chat.ts"
import { type ActiveRuns, ClientGone, ServerShuttingDown } from "../runs.ts"
import { sseResponse } from "../sse.ts"
import type { ServerMetrics } from "../telemetry.ts"

export type ChatDeps = {
  runtime: Runtime
  signer: ApprovalSigner
  metrics: ServerMetrics
  runs: ActiveRuns
  pingIntervalMs: number | undefined
  /** Records the model of the request for the access log. */
  noteModel: (request: Request, model: string) => void
}

/**
 * `POST /api/chat`. Everything that can be refused is refused by `prepareChat` before the run
 * starts, so stream requests get real statuses too. The run's signal is aborted when the client
 * goes away (and by shutdown), which stops the provider call and kills the tool process groups.
 */
export async function handleChat(body: ChatRequestBody, request: Request, deps: ChatDeps): Promise<Response> {
  if (deps.runs.closing) throw new ServerShuttingDown()
  const plan = await prepareChat(body, deps.runtime, deps.signer)
  deps.noteModel(request, plan.llm.model.name)
  for (const decision of plan.run.decisions ?? []) {
    deps.metrics.approvals.inc({ outcome: decision.approved ? "approved" : "denied" })
  }

  const abort = new AbortController()
  const onClientGone = () => {
    if (!abort.signal.aborted) abort.abort(new ClientGone())
  }
  request.signal.addEventListener("abort", onClientGone, { once: true })
  // Looked up per event: the executor knows its full tool set only once the run has checked it.
  const known = (name: string) =>
    name === READ_TOOL_OUTPUT || Object.hasOwn(plan.llm.toolExecutor.toolsByName, name)
  const observe = deps.metrics.observer(plan.llm.model.name, known)

  if (plan.stream) {
    deps.metrics.activeStreams.add(1)
    const { promise: closed, resolve } = Promise.withResolvers<void>()
    deps.runs.track(abort, closed)
    const events = plan.llm.callStream(plan.messages, {
      ...plan.run,
      signal: abort.signal,
      ...(plan.streamText ? { streamText: true } : {}),
    })
    return sseResponse(observed(events, observe), {
      abort,
      pingIntervalMs: deps.pingIntervalMs,
      onClose: (_outcome, errorCode) => {
        deps.metrics.activeStreams.add(-1)
        if (errorCode !== undefined) deps.metrics.chatErrors.inc({ error_code: String(errorCode) })
        request.signal.removeEventListener("abort", onClientGone)
        resolve()
      },
    })
  }

  const run = plan.llm
    .run(plan.messages, { ...plan.run, signal: abort.signal }, observe)
    .then(chatResponseBody)
  deps.runs.track(abort, run)
  try {
    return piecewiseJsonResponse(200, await run)
  } catch (error) {
    // Shutdown ended the run: say so rather than report the abort it caused.
    if (abort.signal.reason instanceof ServerShuttingDown) throw abort.signal.reason
    // Nobody reads this; 499 (nginx's "client closed request") keeps the access log and metrics honest.
    if (abort.signal.reason instanceof ClientGone) {
      return jsonResponse(499, { detail: "The client closed the request.", error_code: 1 })
    }
    const code = (error as { errorCode?: unknown }).errorCode
    deps.metrics.chatErrors.inc({ error_code: typeof code === "number" ? String(code) : "1" })
    throw error
  } finally {
    request.signal.removeEventListener("abort", onClientGone)
  }
}

async function* observed(
  events: AsyncIterable<StreamMessage>,
  observe: (message: StreamMessage) => void,
): AsyncGenerator<StreamMessage, void> {
  // for-await: a client that hangs up returns this generator, which returns the run (cleanup).
  for await (const message of events) {
    observe(message)
    yield message
  }
}
