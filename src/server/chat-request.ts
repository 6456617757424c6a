import { t } from "elysia"

/**
 * The body of `POST /api/chat` (spec "Chat request body"). Failing this schema is a 422; what is
 * well-formed but wrong (history pairing, unknown model, ...) is checked later and is a 400.
 * Top-level `null`s (clients that serialise absent values) are dropped before validation
 * (`withoutNulls`), which keeps the schema free of `Nullable` unions whose errors would point at
 * the whole field instead of the failing element.
 */
const opt = t.Optional

const ImageObject = t.Object({
  url: t.String({ minLength: 1 }),
  detail: t.Optional(t.Nullable(t.Union([t.Literal("low"), t.Literal("high"), t.Literal("auto")]))),
  format: t.Optional(t.Nullable(t.String())),
})

export const ToolDecision = t.Object({
  tool_call_id: t.String({ minLength: 1 }),
  approved: t.Boolean(),
  feedback: t.Optional(t.Nullable(t.String())),
})

export const ChatRequest = t.Object({
  ask: opt(t.String()),
  // Messages are checked by validateHistory, which explains pairing and role problems precisely.
  conversation_history: opt(t.Array(t.Record(t.String(), t.Unknown()))),
  model: opt(t.String({ minLength: 1 })),
  response_format: opt(
    t.Object({
      type: t.Literal("json_schema"),
      json_schema: t.Object({
        name: t.Optional(t.Nullable(t.String())),
        strict: t.Optional(t.Nullable(t.Boolean())),
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
})

export type ChatRequestBody = typeof ChatRequest.static

/** The body with its top-level `null` values removed (see above). */
export function withoutNulls(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== null))
}
