import { type TSchema, Type } from "@sinclair/typebox"

export type ToolParameterType = "string" | "integer" | "number" | "boolean" | "array" | "object"

export type ToolParameterInit = {
  type: ToolParameterType
  description?: string
  /** Default true, as in HolmesGPT. */
  required?: boolean
  default?: unknown
  enum?: Array<string | number>
  /** A regular expression a string value must match. */
  pattern?: string
  /** Element parameter for `array`. */
  items?: ToolParameterInit
  /** Property parameters for `object`. */
  properties?: Record<string, ToolParameterInit>
  /**
   * Values starting with `-` are refused unless this is true: a value like `--kubeconfig=/x` would
   * otherwise become an option of the command it is passed to.
   */
  allowLeadingDash?: boolean
}

export class ToolParameter {
  readonly type: ToolParameterType
  readonly description: string
  readonly required: boolean
  readonly default: unknown
  readonly enum: Array<string | number> | undefined
  readonly pattern: string | undefined
  readonly items: ToolParameter | undefined
  readonly properties: Record<string, ToolParameter> | undefined
  readonly allowLeadingDash: boolean

  constructor(init: ToolParameterInit) {
    this.type = init.type
    this.description = init.description ?? ""
    this.required = init.required ?? true
    this.default = init.default
    this.enum = init.enum
    this.pattern = init.pattern
    this.items = init.items ? new ToolParameter(init.items) : undefined
    this.properties = init.properties
      ? Object.fromEntries(Object.entries(init.properties).map(([k, v]) => [k, new ToolParameter(v)]))
      : undefined
    this.allowLeadingDash = init.allowLeadingDash ?? false
  }

  /** TypeBox schema: serialises to clean JSON Schema for the model and compiles for validation. */
  schema(): TSchema {
    const options: Record<string, unknown> = {}
    if (this.description) options.description = this.description
    if (this.default !== undefined) options.default = this.default
    switch (this.type) {
      case "string":
        if (this.enum)
          return Type.Union(
            this.enum.map((v) => Type.Literal(v)),
            options,
          )
        return Type.String(this.pattern ? { ...options, pattern: this.pattern } : options)
      case "integer":
        return Type.Integer(options)
      case "number":
        return Type.Number(options)
      case "boolean":
        return Type.Boolean(options)
      case "array":
        return Type.Array(this.items?.schema() ?? Type.Unknown(), options)
      case "object":
        return this.properties
          ? parametersSchema(this.properties, options)
          : Type.Record(Type.String(), Type.Unknown(), options)
    }
  }
}

/** The object schema of a parameter map. A null optional value is dropped before validation. */
export function parametersSchema(
  params: Record<string, ToolParameter>,
  options: Record<string, unknown> = {},
): TSchema {
  const props: Record<string, TSchema> = {}
  for (const [name, param] of Object.entries(params)) {
    props[name] = param.required ? param.schema() : Type.Optional(param.schema())
  }
  return Type.Object(props, { additionalProperties: false, ...options })
}
