/**
 * The YAML toolset format (CONTRACT §6) as TypeBox schemas. `expected` says each form in the
 * operator's words for the messages (config/validate.ts); schema.ts checks the rest.
 */
import { type Static, type TSchema, Type } from "@sinclair/typebox"
import type { ToolParameterType } from "../tool/parameter.ts"
import { PROGRAM_KINDS } from "./program-text.ts"

export const PARAM_TYPES: ToolParameterType[] = ["string", "integer", "number", "boolean", "array", "object"]
/**
 * HolmesGPT keys accepted and reported, never acted on (its `Toolset` model: holmes/core/tools.py).
 * `experimental` and `is_default` steer which of HolmesGPT's own toolsets it switches on.
 */
export const TOOLSET_IGNORED = [
  "icon_url",
  "installation_instructions",
  "transformers",
  "transformer_configs",
  "experimental",
  "is_default",
]
/**
 * `args` is not HolmesGPT's either, but its bundled `cilium.yaml` carries it and pydantic drops
 * unknown tool keys there, so that file loads in HolmesGPT.
 */
export const TOOL_IGNORED = ["user_description", "icon_url", "transformers", "transformer_configs", "args"]

const Str = Type.String({ expected: "a string" })
const Bool = Type.Boolean({ expected: "true or false" })
const Mapping = Type.Record(Type.String(), Type.Unknown(), { expected: "a mapping" })
const Ignored = Type.Optional(Type.Unknown())
const listOf = <T extends TSchema>(item: T) => Type.Array(item, { expected: "a list" })
const strict = { additionalProperties: false, expected: "a mapping" } as const

const ParameterSchema = Type.Recursive(
  (This) =>
    Type.Object(
      {
        type: Type.Optional(
          Type.Union(
            PARAM_TYPES.map((t) => Type.Literal(t)),
            { expected: `one of ${PARAM_TYPES.join(", ")}` },
          ),
        ),
        description: Type.Optional(Str),
        required: Type.Optional(Bool),
        default: Type.Optional(Type.Unknown()),
        enum: Type.Optional(
          listOf(Type.Union([Type.String(), Type.Number()], { expected: "a string or number" })),
        ),
        pattern: Type.Optional(Str),
        allow_leading_dash: Type.Optional(Bool),
        items: Type.Optional(This),
        properties: Type.Optional(Type.Record(Type.String(), This, { expected: "a mapping" })),
        /** The value is a program text in this grammar (`program: jq`). */
        program: Type.Optional(
          Type.Union(
            PROGRAM_KINDS.map((k) => Type.Literal(k)),
            { expected: `one of ${PROGRAM_KINDS.join(", ")}` },
          ),
        ),
      },
      strict,
    ),
  { $id: "ToolParameter" },
)
export type ParameterBody = Static<typeof ParameterSchema>

const PrerequisiteSchema = Type.Object(
  { command: Type.Optional(Str), expected_output: Type.Optional(Str), env: Type.Optional(listOf(Str)) },
  strict,
)

const ToolSchema = Type.Object(
  {
    name: Str,
    description: Str,
    command: Type.Optional(Str),
    /** HolmesGPT's name for `command`. */
    script: Type.Optional(Str),
    parameters: Type.Optional(Type.Record(Type.String(), ParameterSchema, { expected: "a mapping" })),
    timeout: Type.Optional(Type.Integer({ minimum: 1, expected: "a positive integer" })),
    requires_approval: Type.Optional(Bool),
    /**
     * The answer is about the host itself (its mounts, its processes): the tool must see the
     * host's view, not its sandbox's. A declaration for the containment to honour.
     */
    host_view: Type.Optional(Bool),
    /** HolmesGPT's shell filter on the output (the command's stdout is its stdin). */
    additional_instructions: Type.Optional(Str),
    user_description: Ignored,
    icon_url: Ignored,
    args: Ignored,
    transformers: Ignored,
    /** Older HolmesGPT files' name for `transformers`. */
    transformer_configs: Ignored,
  },
  strict,
)
export type ToolBody = Static<typeof ToolSchema>

const ToolsetSchema = Type.Object(
  {
    description: Type.Optional(Str),
    enabled: Type.Optional(Bool),
    llm_instructions: Type.Optional(Str),
    /** HolmesGPT's shell filter applied to the output of each of its tools. */
    additional_instructions: Type.Optional(Str),
    /**
     * Variables of dupin's environment its commands may read as `$NAME` (HolmesGPT expands
     * `${NAME}` in commands; dupin hands the declared ones to the shell as data).
     */
    env: Type.Optional(
      listOf(Type.String({ pattern: "^[A-Za-z_][A-Za-z0-9_]*$", expected: "a variable name" })),
    ),
    prerequisites: Type.Optional(listOf(PrerequisiteSchema)),
    tools: Type.Optional(listOf(ToolSchema)),
    config: Type.Optional(Mapping),
    docs_url: Type.Optional(Str),
    tags: Type.Optional(listOf(Str)),
    icon_url: Ignored,
    installation_instructions: Ignored,
    transformers: Ignored,
    transformer_configs: Ignored,
    experimental: Ignored,
    is_default: Ignored,
  },
  strict,
)
export type ToolsetBody = Static<typeof ToolsetSchema>

export const ToolsetsMapSchema = Type.Record(Type.String(), ToolsetSchema, { expected: "a mapping" })

/** A toolset file: one `toolsets:` map. */
export const ToolsetFileSchema = Type.Object(
  {
    toolsets: Type.Optional(ToolsetsMapSchema),
    /** MCP servers (CONTRACT §8); each entry is checked by the MCP toolset kind (toolset/mcp/). */
    mcp_servers: Type.Optional(Mapping),
  },
  strict,
)
