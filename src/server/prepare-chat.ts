import type { ApprovalMode, FrontendTools, TurnSigner } from "../agent/approval.ts"
import { checkDecisions, type ToolDecision } from "../agent/decisions.ts"
import { echo, echoList } from "../agent/echo.ts"
import { buildInitialAskMessages, buildUserMessage } from "../agent/prompt/messages.ts"
import {
  isPromptSection,
  PROMPT_SECTIONS,
  type PromptSection,
  resolveSections,
} from "../agent/prompt/sections.ts"
import { findPendingTurn } from "../agent/resume.ts"
import type { RunOptions, ToolCallingLLM } from "../agent/tool-calling-llm.ts"
import type { Config } from "../config/config.ts"
import { ConfigError, RequestError } from "../errors.ts"
import type { ChatMessage, ChatModel, ContentPart, ToolCall } from "../llm/types.ts"
import type { Runtime } from "../runtime/runtime.ts"
import type { ApprovalSigner } from "./approvals.ts"
import type { ChatRequestBody } from "./chat-request.ts"
import { conversationId } from "./conversation-id.ts"
import { frontendToolSchemas, joinDecisions, noopResponses } from "./frontend-tools.ts"
import { validateHistorySliced } from "./history.ts"
import { toImageParts } from "./images.ts"
import { requestedModelProblem, withoutConfigPath } from "./model-availability.ts"
import { structuredOutput } from "./response-format.ts"

/** A validated chat request, ready to run: everything that can be refused has been refused. */
export type ChatPlan = {
  stream: boolean
  /** `stream_text` (CONTRACT §9): the stream also carries `ai_message_delta` events. */
  streamText: boolean
  /** The engine door for this request's model; the route only adds the connection's signal. */
  llm: ToolCallingLLM
  messages: ChatMessage[]
  /** The run's options except the abort signal, which belongs to the connection. */
  run: Omit<RunOptions, "signal">
}

/**
 * Checks a schema-valid request against the configuration and the history it carries, and builds
 * the agent run. Throws RequestError (400) for anything well-formed but wrong, before any model
 * call or tool run, so a stream request gets a real status too.
 */
export async function prepareChat(
  body: ChatRequestBody,
  runtime: Runtime,
  signer: ApprovalSigner,
): Promise<ChatPlan> {
  requireStreamForFrontendTools(body)
  const frontendResults = body.frontend_tool_results ?? []
  const decisions =
    body.tool_decisions?.length || frontendResults.length ? (body.tool_decisions ?? []) : undefined
  const ask = body.ask ?? ""
  if (!decisions && ask.trim() === "") {
    throw new RequestError(
      "ask is required (it may be omitted only on a follow-up that carries tool_decisions).",
      {
        kind: "schema",
        errors: [{ path: "/ask", message: "Expected a non-empty question" }],
      },
    )
  }

  const { config } = runtime
  const llm = chatEngine(runtime, body.model ?? undefined)
  const { model } = llm
  const sections = resolveSections(config.enabledPrompts, behaviorControls(body.behavior_controls))
  const structured = body.response_format ? structuredOutput(body.response_format) : undefined
  const images = imageParts(body, model, config)
  const executor = runtime.executor
  const { runbooks } = runtime
  const userMessage = () =>
    buildUserMessage({ initialUserPrompt: ask, runbooks, images, toolExecutor: executor }, sections)

  let messages: ChatMessage[]
  let firstTurn = true
  let checked: readonly ToolDecision[] | undefined
  let followUp: ChatMessage | undefined
  if (body.conversation_history) {
    const history = await validateHistorySliced(body.conversation_history)
    firstTurn = !history.hasAssistant
    messages = history.messages
    if (decisions) {
      await executor.ensureReady()
      const joined = joinDecisions(decisions, frontendResults, history.pending, executor.toolsByName)
      checked = verifyDecisions(joined, history, signer)
      // An empty ask resumes from the history; a question (or images) becomes a new user message.
      if (ask.trim() !== "" || images.length > 0) followUp = userMessage()
    } else {
      if (history.pending.length > 0) {
        throw new RequestError(
          `The conversation has tool calls waiting for approval (${echoList(history.pending.map((c) => c.id))}); send tool_decisions for them.`,
        )
      }
      messages.push(userMessage())
    }
  } else {
    if (decisions)
      throw new RequestError("tool_decisions need the conversation_history that asked for approval.")
    // The checks start inside: the system prompt lists toolsets whose prerequisites failed.
    messages = await buildInitialAskMessages({
      initialUserPrompt: ask,
      toolExecutor: executor,
      runbooks,
      systemPromptAdditions: joinAdditions(config.systemPromptAdditions, body.additional_system_prompt),
      clusterName: config.clusterName,
      sections,
      images,
    })
  }

  const sign: TurnSigner = (turn) => {
    const conversation = conversationId(turn)
    return (call) => signer.sign(call, conversation)
  }
  const approval: ApprovalMode = body.enable_tool_approval ? { kind: "pause", sign } : { kind: "off" }
  let frontendTools: FrontendTools | undefined
  if (body.frontend_tools?.length) {
    await executor.ensureReady()
    const noop = noopResponses(body.frontend_tools)
    frontendTools = {
      tools: frontendToolSchemas(body.frontend_tools, executor.toolsByName, "frontend_tools"),
      sign,
      ...(noop.size > 0 ? { noop } : {}),
    }
  }
  return {
    stream: body.stream ?? false,
    streamText: body.stream_text ?? false,
    llm,
    messages,
    run: {
      approval,
      followUpActions: firstTurn ? [...config.followUpActions] : [],
      ...(structured ?? {}),
      ...(checked ? { decisions: checked } : {}),
      ...(frontendTools ? { frontendTools } : {}),
      ...(followUp ? { followUp } : {}),
    },
  }
}

/** Frontend tools pause a run mid-stream (CONTRACT §11): a JSON response has no way to carry that. */
function requireStreamForFrontendTools(body: ChatRequestBody): void {
  if (body.stream === true) return
  const field = body.frontend_tools?.length
    ? "frontend_tools"
    : body.frontend_tool_results?.length
      ? "frontend_tool_results"
      : undefined
  if (!field) return
  throw new RequestError(`${field} needs stream: true.`, {
    kind: "schema",
    errors: [{ path: "/stream", message: `Expected true when ${field} is sent` }],
  })
}

function behaviorControls(
  controls: Record<string, boolean> | null | undefined,
): Partial<Record<PromptSection, boolean>> {
  if (!controls) return {}
  const unknown = Object.keys(controls).filter((k) => !isPromptSection(k))
  if (unknown.length > 0) {
    throw new RequestError(
      `behavior_controls has unknown key${unknown.length > 1 ? "s" : ""} ${echoList(unknown)}. Valid keys: ${PROMPT_SECTIONS.join(", ")}.`,
    )
  }
  return controls
}

function imageParts(body: ChatRequestBody, model: ChatModel, config: Config): ContentPart[] {
  const images = body.images ?? []
  if (images.length === 0) return []
  // Unknown models default to vision (CONTRACT §4): only a catalog or config "no" refuses.
  if (model.info.supportsVision === false) {
    throw new RequestError(`Model ${model.name} does not accept images; use a vision-enabled model.`)
  }
  return toImageParts(
    images.map((image) =>
      typeof image === "string"
        ? image
        : { url: image.url, detail: image.detail ?? undefined, format: image.format ?? undefined },
    ),
    config.imageLimits,
  )
}

/**
 * The engine's decision check (one decision per pending call, nothing else), then the HTTP face's
 * own proof: a client may decide a call, never alter or invent one. Runs before the stream opens.
 */
function verifyDecisions(
  decisions: readonly ToolDecision[],
  history: { messages: readonly ChatMessage[]; pending: readonly ToolCall[] },
  signer: ApprovalSigner,
): readonly ToolDecision[] {
  const { pending } = history
  checkDecisions(pending, decisions)
  // All signatures are checked, denied calls included: a forged history is refused as a whole.
  const turn = findPendingTurn(history.messages)
  const conversation = conversationId(history.messages.slice(0, (turn?.index ?? -1) + 1))
  for (const call of pending) {
    const problem = signer.verify(call, conversation)
    if (problem)
      throw new RequestError(
        `Tool call ${echo(call.id)} (${echo(call.function.name)}) cannot be decided: ${problem}.`,
      )
  }
  // Spent before anything runs, synchronously after the checks: two concurrent requests with the
  // same history cannot both get past them.
  const full = signer.spend(pending)
  if (full) throw new RequestError(`The tool decisions cannot be accepted now: ${full}.`)
  return decisions
}

function joinAdditions(...parts: Array<string | null | undefined>): string | undefined {
  const kept = parts.map((p) => p?.trim()).filter((p): p is string => Boolean(p))
  return kept.length > 0 ? kept.join("\n\n") : undefined
}

/**
 * The request's model. One the caller named that cannot be called (its key variable unset) is a
 * 400 naming the variable; the default one failing is the server's fault, told without its paths.
 */
function chatEngine(runtime: Runtime, name: string | undefined): ToolCallingLLM {
  const { config } = runtime
  if (name !== undefined) {
    const problem = requestedModelProblem(config, name)
    if (problem) throw problem
  }
  try {
    return runtime.engine(name)
  } catch (error) {
    if (error instanceof ConfigError) throw withoutConfigPath(error, config.configFile)
    throw error
  }
}
