import { compileJsonSchema, SchemaProblem } from "../agent/json-schema.ts"
import { RequestError } from "../errors.ts"
import type { ResponseFormat } from "../llm/types.ts"

export type ResponseFormatInput = {
  type: "json_schema"
  json_schema: {
    name?: string | null | undefined
    strict?: boolean | null | undefined
    schema: Record<string, unknown>
  }
}

export type StructuredOutput = {
  responseFormat: ResponseFormat
  /** For runAgent: why an answer does not match the schema, or undefined when it does. */
  validateAnswer: (answer: string) => string | undefined
}

/** OpenAI's rule for the format name, which several compatible servers copy. */
const NAME = /^[A-Za-z0-9_-]{1,64}$/

/**
 * The provider's `response_format` (strict forced on, CONTRACT §5) and a validator for the final
 * answer, so a model that ignores the schema is corrected once and then reported, never passed on.
 */
export function structuredOutput(input: ResponseFormatInput): StructuredOutput {
  const name = input.json_schema.name ?? "response"
  if (!NAME.test(name)) {
    throw new RequestError("response_format.json_schema.name must be 1 to 64 letters, digits, _ or -.")
  }
  let validate: (value: unknown) => string | undefined
  try {
    validate = compileJsonSchema(input.json_schema.schema).validate
  } catch (error) {
    if (!(error instanceof SchemaProblem)) throw error
    throw new RequestError(
      `response_format.json_schema.schema is not a usable JSON schema: ${error.message}.`,
    )
  }
  return {
    responseFormat: {
      type: "json_schema",
      json_schema: { name, strict: true, schema: input.json_schema.schema },
    },
    validateAnswer: (answer) => {
      let value: unknown
      try {
        value = JSON.parse(answer)
      } catch {
        return "the answer is not valid JSON"
      }
      return validate(value)
    },
  }
}
