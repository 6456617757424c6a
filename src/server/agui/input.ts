import { type Static, Type as t } from "@sinclair/typebox"
import { BodySchema } from "../body-schema.ts"

/**
 * AG-UI 1.0's RunAgentInput, the fields dupin reads typed (a mistyped one is a 422 with its path);
 * unknown fields are allowed and ignored, as AG-UI's own schemas are loose.
 */
const opt = t.Optional

const ToolCall = t.Object({
  id: t.String({ minLength: 1 }),
  type: opt(t.Literal("function")),
  function: t.Object({ name: t.String(), arguments: t.String() }),
  /** Where dupin keeps an approval's signature: AG-UI clients store it and send it back as is. */
  encryptedValue: opt(t.String()),
})

const ContentPart = t.Object({ type: t.String(), text: opt(t.String()) })

/** One message of any AG-UI role; what each role needs is checked in messages.ts (400). */
const Message = t.Object({
  id: t.String(),
  role: t.String(),
  content: opt(t.Union([t.String(), t.Array(ContentPart), t.Null()])),
  toolCalls: opt(t.Array(ToolCall)),
  toolCallId: opt(t.String()),
})

const Tool = t.Object({
  name: t.String({ minLength: 1 }),
  description: t.String(),
  parameters: opt(t.Unknown()),
})

const ResumeEntry = t.Object({
  interruptId: t.String({ minLength: 1 }),
  status: t.Union([t.Literal("resolved"), t.Literal("cancelled")]),
  payload: opt(t.Unknown()),
})

export const RunAgentInput = t.Object({
  threadId: t.String({ minLength: 1 }),
  runId: t.String({ minLength: 1 }),
  messages: t.Array(Message),
  tools: opt(t.Array(Tool)),
  context: opt(t.Array(t.Object({ description: t.String(), value: t.String() }))),
  state: opt(t.Unknown()),
  forwardedProps: opt(t.Unknown()),
  resume: opt(t.Array(ResumeEntry)),
})

export type RunAgentInputBody = Static<typeof RunAgentInput>
export type AguiMessage = Static<typeof Message>
export type AguiResumeEntry = Static<typeof ResumeEntry>

const schema = new BodySchema(RunAgentInput)

/** The parsed RunAgentInput, or a 422 naming every mistyped field. */
export function parseRunAgentInput(body: unknown): RunAgentInputBody {
  return schema.parse(body)
}
