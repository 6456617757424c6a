import { buildSystemPrompt } from "../../agent/prompt/build.ts"
import { resolveSections } from "../../agent/prompt/sections.ts"
import type { RunOptions } from "../../agent/tool-calling-llm.ts"
import { READ_TOOL_OUTPUT } from "../../context/read-tool-output.ts"
import { RequestError } from "../../errors.ts"
import { isRecord } from "../../is-record.ts"
import type { ChatMessage, ToolCall } from "../../llm/types.ts"
import { frontendToolSchemas } from "../frontend-tools.ts"
import { validateHistory } from "../history.ts"
import type { ChatDeps } from "../routes/chat.ts"
import { ClientGone, ServerShuttingDown } from "../runs.ts"
import { errorEvent, sseStream } from "../sse.ts"
import { type AguiEvent, AguiTranslator } from "./events.ts"
import type { RunAgentInputBody } from "./input.ts"
import { fromAgui } from "./messages.ts"
import { aguiConversation, resumeDecisions, tokenScope } from "./resume.ts"

/**
 * `POST /api/agui` (CONTRACT §11): an AG-UI 1.0 run on the engine door. Everything that can be
 * refused is refused before the stream opens (422/400/401 as on /api/chat); after that, a failure
 * is the run's RUN_ERROR. The client hanging up aborts the run: the provider call stops and the
 * tool process groups are killed.
 */
export async function handleAgui(
  input: RunAgentInputBody,
  request: Request,
  deps: ChatDeps & { authToken: string | undefined },
): Promise<Response> {
  if (deps.runs.closing) throw new ServerShuttingDown()
  const { runtime, signer } = deps
  const llm = runtime.engine(modelOf(input.forwardedProps))
  deps.noteModel(request, llm.model.name)
  const { executor, config } = runtime
  await executor.ensureReady()
  const dupinTools = executor.toolsByName
  const offered = frontendToolSchemas(
    (input.tools ?? []).map((t) => ({
      function: {
        name: t.name,
        description: t.description,
        ...(isRecord(t.parameters) ? { parameters: t.parameters } : {}),
      },
    })),
    dupinTools,
    "tools",
  )

  const converted = fromAgui(input.messages, (name) => !Object.hasOwn(dupinTools, name))
  const system: ChatMessage = {
    role: "system",
    content: buildSystemPrompt({
      sections: resolveSections(config.enabledPrompts, {}),
      toolsets: executor.toolsets,
      clusterName: config.clusterName,
      additions: [
        config.systemPromptAdditions,
        ...converted.instructions,
        ...(input.context ?? []).map((c) => `${c.description}: ${c.value}`),
      ],
    }),
  }
  const history = validateHistory([system, ...converted.messages]).messages
  const binding = { scope: tokenScope(deps.authToken), threadId: input.threadId }
  const decisions = resumeDecisions(input.resume ?? [], converted, history, binding, dupinTools, signer)
  if (!decisions && history.at(-1)?.role !== "user") {
    throw new RequestError(
      "The run has nothing to answer: the last message must be the user's, or resume a paused run.",
    )
  }
  for (const d of decisions ?? []) {
    if (d.result === undefined) deps.metrics.approvals.inc({ outcome: d.approved ? "approved" : "denied" })
  }

  const sign = (turn: readonly ChatMessage[]) => {
    const conversation = aguiConversation(binding.scope, binding.threadId, turn)
    return (call: ToolCall) => signer.sign(call, conversation)
  }
  const translator = new AguiTranslator({
    threadId: input.threadId,
    runId: input.runId,
    inputIds: inputIds(converted.messages, converted.ids),
    clientToolMessageIds: new Map([...converted.frontendResults].map(([callId, r]) => [callId, r.id])),
  })
  const abort = new AbortController()
  const onClientGone = () => {
    if (!abort.signal.aborted) abort.abort(new ClientGone())
  }
  request.signal.addEventListener("abort", onClientGone, { once: true })
  const options: RunOptions = {
    approval: { kind: "pause", sign },
    ...(offered.length > 0 ? { frontendTools: { tools: offered, sign } } : {}),
    ...(decisions ? { decisions } : {}),
    streamText: true,
    onToolCall: translator.onToolCall,
    signal: abort.signal,
  }
  const known = (name: string) =>
    name === READ_TOOL_OUTPUT || Object.hasOwn(llm.toolExecutor.toolsByName, name)
  const observe = deps.metrics.observer(llm.model.name, known)

  async function* events(): AsyncGenerator<AguiEvent, void> {
    yield* translator.started()
    try {
      for await (const event of llm.callStream(history, options)) {
        observe(event)
        yield* translator.translate(event)
      }
    } catch (error) {
      const failure = abort.signal.reason instanceof ServerShuttingDown ? abort.signal.reason : error
      const { data } = errorEvent(failure)
      yield* translator.failed(data.description, String(data.error_code))
    }
  }

  deps.metrics.activeStreams.add(1)
  const { promise: closed, resolve } = Promise.withResolvers<void>()
  deps.runs.track(abort, closed)
  return sseStream(
    events(),
    {
      abort,
      pingIntervalMs: deps.pingIntervalMs,
      onClose: () => {
        deps.metrics.activeStreams.add(-1)
        request.signal.removeEventListener("abort", onClientGone)
        resolve()
      },
    },
    // AG-UI's SSE encoding (@ag-ui/encoder): a `data:` line per event, the type inside it.
    (event) => `data: ${JSON.stringify(event)}\n\n`,
  )
}

function inputIds(messages: readonly ChatMessage[], ids: readonly string[]) {
  const users: string[] = []
  const assistants: string[] = []
  const tools = new Map<string, string>()
  messages.forEach((m, i) => {
    const id = ids[i] ?? ""
    if (m.role === "user") users.push(id)
    else if (m.role === "assistant") assistants.push(id)
    else if (m.role === "tool") tools.set(m.tool_call_id, id)
  })
  return { users, assistants, tools }
}

/** `forwardedProps.model` picks a configured model, as /api/chat's `model` does. */
function modelOf(props: unknown): string | undefined {
  return isRecord(props) && typeof props.model === "string" ? props.model : undefined
}
