import { type Static, type TSchema, Type as t } from "@sinclair/typebox"
import { BodySchema } from "./body-schema.ts"

/**
 * The body of `POST /api/chat` (spec "Chat request body"), every field typed, nested ones too.
 * Failing this schema is a 422 naming the field's path and the expected type; what is
 * well-formed but wrong (a role that does not exist, history pairing, unknown model, ...) is
 * checked later and is a 400. Top-level `null`s (clients that serialise absent values) are
 * dropped before validation (`withoutNulls`); nested fields that may be null say so. Unknown
 * fields are allowed and ignored: nothing a client adds travels on.
 */
const opt = t.Optional
const nullable = <T extends TSchema>(schema: T) => t.Optional(t.Union([schema, t.Null()]))

const ImageUrl = t.Object({
  url: t.String(),
  detail: nullable(t.String()),
  format: nullable(t.String()),
})

/** A content part; which fields a `type` needs is checked with the history (history.ts). */
const ContentPart = t.Object({
  type: t.String(),
  text: opt(t.String()),
  image_url: opt(ImageUrl),
})

const ToolCall = t.Object({
  id: t.String(),
  type: opt(t.Literal("function")),
  function: t.Object({ name: t.String(), arguments: t.String() }),
  pending_approval: nullable(t.Object({ signature: t.String() })),
})

/** One message of any role; what each role needs is checked with the history (history.ts). */
const HistoryMessage = t.Object({
  role: t.String(),
  content: t.Optional(t.Union([t.String(), t.Null(), t.Array(ContentPart)])),
  tool_calls: nullable(t.Array(ToolCall)),
  tool_call_id: nullable(t.String()),
  name: nullable(t.String()),
})

const ImageObject = t.Object({
  url: t.String({ minLength: 1 }),
  detail: nullable(t.Union([t.Literal("low"), t.Literal("high"), t.Literal("auto")])),
  format: nullable(t.String()),
})

const ToolDecision = t.Object({
  tool_call_id: t.String({ minLength: 1 }),
  approved: t.Boolean(),
  feedback: nullable(t.String()),
})

/**
 * HolmesGPT's frontend tools (CONTRACT §11), tools the client executes: an OpenAI function
 * definition, or HolmesGPT's own item (the same fields at the top, and its `mode`).
 */
const FunctionFields = {
  name: t.String({ minLength: 1 }),
  description: opt(t.String()),
  parameters: nullable(t.Record(t.String(), t.Unknown())),
}
const FrontendTool = t.Union([
  t.Object({ type: opt(t.Literal("function")), function: t.Object(FunctionFields) }),
  t.Object({
    ...FunctionFields,
    /** `pause` (the default): the run waits for the client's result; `noop`: it goes on at once. */
    mode: opt(t.Union([t.Literal("pause"), t.Literal("noop")])),
    /** What the model reads after a `noop` call. */
    noop_response: nullable(t.String()),
  }),
])

const FrontendToolResult = t.Object({
  tool_call_id: t.String({ minLength: 1 }),
  tool_name: nullable(t.String()),
  result: t.Unknown(),
})

export const ChatRequest = t.Object({
  ask: opt(t.String()),
  conversation_history: opt(t.Array(HistoryMessage)),
  model: opt(t.String({ minLength: 1 })),
  response_format: opt(
    t.Object({
      type: t.Literal("json_schema"),
      json_schema: t.Object({
        name: nullable(t.String()),
        strict: nullable(t.Boolean()),
        schema: t.Record(t.String(), t.Unknown()),
      }),
    }),
  ),
  images: opt(t.Array(t.Union([t.String({ minLength: 1 }), ImageObject]))),
  stream: opt(t.Boolean()),
  /** CONTRACT §9: also send `ai_message_delta` events while the model writes (stream only). */
  stream_text: opt(t.Boolean()),
  enable_tool_approval: opt(t.Boolean()),
  additional_system_prompt: opt(t.String()),
  behavior_controls: opt(t.Record(t.String(), t.Boolean())),
  tool_decisions: opt(t.Array(ToolDecision)),
  frontend_tools: opt(t.Array(FrontendTool)),
  frontend_tool_results: opt(t.Array(FrontendToolResult)),
})

export type ChatRequestBody = Static<typeof ChatRequest>

const schema = new BodySchema(ChatRequest)
const historyItem = new BodySchema(HistoryMessage)

/** Compiles the body check now, off a request's path (serve's warm-up). */
export function compileChatRequest(): void {
  schema.compiled()
  historyItem.compiled()
}

/**
 * The parsed body of `POST /api/chat`, or a 422 naming every mistyped field. A long
 * `conversation_history` is checked a slice at a time (R2).
 */
export function parseChatRequest(body: unknown): Promise<ChatRequestBody> {
  return schema.parseSliced(body, "conversation_history", historyItem)
}

/** The body with its top-level `null` values removed (see above). */
export function withoutNulls(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== null))
}
