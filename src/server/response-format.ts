import { RequestError } from "../errors.ts"
import { compileJsonSchema, SchemaProblem } from "../json-schema.ts"
import type { ResponseFormat } from "../llm/types.ts"
import { JobTimeout, offLoop } from "../offloop/runner.ts"

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
  validateAnswer: (answer: string, signal: AbortSignal) => Promise<string | undefined>
}

/**
 * The client's `pattern`s run on the model's answer with a backtracking engine (`^(\w+\s?)*$`
 * takes a second on 41 characters, finding R15), so answers are checked in a worker; one that
 * cannot be checked within this is refused like one that does not match.
 */
const CHECK_DEADLINE_MS = 2_000

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
  const schema = input.json_schema.schema
  try {
    compileJsonSchema(schema)
  } catch (error) {
    if (!(error instanceof SchemaProblem)) throw error
    throw new RequestError(
      `response_format.json_schema.schema is not a usable JSON schema: ${error.message}.`,
    )
  }
  return {
    responseFormat: {
      type: "json_schema",
      json_schema: { name, strict: true, schema },
    },
    validateAnswer: async (answer, signal) => {
      try {
        return await offLoop({ kind: "check-answer", schema, answer }, CHECK_DEADLINE_MS, signal)
      } catch (error) {
        if (!(error instanceof JobTimeout)) throw error
        return `the answer could not be checked against the schema within ${CHECK_DEADLINE_MS / 1000} s (a pattern that backtracks?)`
      }
    },
  }
}
