/**
 * The MCP client's validator of a tool's `outputSchema`: it accepts every value. The SDK's default
 * (Ajv) runs the server's `pattern` and `format` regular expressions against the server's own
 * `structuredContent` on dupin's event loop, so a hostile server stalls every request with a
 * backtracking pattern (`^(a|a)*$`: 34 s for 60 strings, finding R1). dupin only prints
 * structuredContent beside the text content; checking it against the server's schema would
 * protect nothing the server could not defeat by changing its schema.
 */
import type { JsonSchemaValidator, jsonSchemaValidator } from "@modelcontextprotocol/client"

export const acceptingValidator: jsonSchemaValidator = {
  getValidator<T>(): JsonSchemaValidator<T> {
    return (input) => ({ valid: true, data: input as T, errorMessage: undefined })
  },
}
