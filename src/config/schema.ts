import { type Static, Type } from "@sinclair/typebox"
import { AlertsSchema, StoreSchema } from "./alerts.ts"
import { SecuritySchema } from "./security.ts"

const Str = Type.String()
const NullableStr = Type.Union([Type.String(), Type.Null()])
const PositiveInt = Type.Integer({ minimum: 1 })

export const ModelEntrySchema = Type.Object(
  {
    model: Type.String({ minLength: 1 }),
    api_key: Type.Optional(NullableStr),
    api_base: Type.Optional(NullableStr),
    api_version: Type.Optional(NullableStr),
    temperature: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 2 }), Type.Null()])),
    context_window: Type.Optional(Type.Union([PositiveInt, Type.Null()])),
    max_output_tokens: Type.Optional(Type.Union([PositiveInt, Type.Null()])),
    supports_vision: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    input_cost_per_token: Type.Optional(Type.Union([Type.Number({ minimum: 0 }), Type.Null()])),
    output_cost_per_token: Type.Optional(Type.Union([Type.Number({ minimum: 0 }), Type.Null()])),
  },
  { additionalProperties: false },
)
export type ModelEntry = Static<typeof ModelEntrySchema>

export const FollowUpActionSchema = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    action_label: Type.String({ minLength: 1 }),
    pre_action_notification_text: Str,
    prompt: Type.String({ minLength: 1 }),
  },
  { additionalProperties: false },
)
/** A first-turn action offered to the user (spec `follow_up_actions`). */
export type FollowUpAction = Static<typeof FollowUpActionSchema>

export const LimitsSchema = Type.Object(
  {
    tool_timeout_default: Type.Optional(PositiveInt),
    tool_timeout_max: Type.Optional(PositiveInt),
    tool_output_max_bytes: Type.Optional(Type.Integer({ minimum: 1024 })),
    max_parallel_tool_calls: Type.Optional(PositiveInt),
    request_tool_output_max_bytes: Type.Optional(Type.Integer({ minimum: 1024 })),
    tool_result_echo_max_bytes: Type.Optional(Type.Integer({ minimum: 1024 })),
    max_images: Type.Optional(Type.Integer({ minimum: 0 })),
    max_image_bytes: Type.Optional(Type.Integer({ minimum: 0 })),
    tool_definitions_budget_pct: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  },
  { additionalProperties: false },
)

export const ServerSchema = Type.Object(
  {
    host: Type.Optional(Str),
    port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
    auth_token: Type.Optional(NullableStr),
    approval_secret: Type.Optional(NullableStr),
    approval_ttl: Type.Optional(PositiveInt),
    max_body_bytes: Type.Optional(Type.Integer({ minimum: 1024 })),
    header_timeout: Type.Optional(Type.Number({ minimum: 0, maximum: 600 })),
    drain_delay: Type.Optional(Type.Number({ minimum: 0, maximum: 600 })),
    console: Type.Optional(Type.Boolean()),
    /** Links back to dupin in delivered findings (CONTRACT §10). */
    public_url: Type.Optional(NullableStr),
  },
  { additionalProperties: false },
)

/** `toolsets:` entries are checked by the toolset loader, which knows the toolset format. */
export const ConfigFileSchema = Type.Object(
  {
    model: Type.Optional(NullableStr),
    api_key: Type.Optional(NullableStr),
    api_base: Type.Optional(NullableStr),
    api_version: Type.Optional(NullableStr),
    /** The single model's window and output limit (a modelList entry has its own). */
    context_window: Type.Optional(Type.Union([PositiveInt, Type.Null()])),
    max_output_tokens: Type.Optional(Type.Union([PositiveInt, Type.Null()])),
    max_steps: Type.Optional(PositiveInt),
    cluster_name: Type.Optional(NullableStr),
    system_prompt_additions: Type.Optional(NullableStr),
    custom_toolsets: Type.Optional(Type.Array(Str)),
    runbooks: Type.Optional(Type.Array(Str)),
    toolsets: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    /** HolmesGPT's `mcp_servers:` map (CONTRACT §8), checked by the MCP toolset kind. */
    mcp_servers: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    modelList: Type.Optional(Type.Record(Type.String({ minLength: 1 }), ModelEntrySchema)),
    follow_up_actions: Type.Optional(Type.Array(FollowUpActionSchema)),
    limits: Type.Optional(LimitsSchema),
    server: Type.Optional(ServerSchema),
    security: Type.Optional(SecuritySchema),
    alerts: Type.Optional(AlertsSchema),
    store: Type.Optional(StoreSchema),
  },
  { additionalProperties: false },
)
export type ConfigFile = Static<typeof ConfigFileSchema>
