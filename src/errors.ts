/**
 * The error hierarchy. Every failure that crosses a boundary (HTTP, CLI, library) is one of these,
 * each carrying the HTTP status and error code it maps to (CONTRACT §5), so one mapper serves all.
 */
export abstract class DupinError extends Error {
  abstract readonly status: number
  abstract readonly errorCode: number

  constructor(message: string) {
    super(message)
    // The subclass's own name ("ConfigError"), so logs and `toString` say which kind failed.
    this.name = new.target.name
  }

  toJSON(): { detail: string; error_code: number } {
    return { detail: this.message, error_code: this.errorCode }
  }
}

/** The operator must fix something: config file, environment variable, toolset file. Exit code 2. */
export class ConfigError extends DupinError {
  readonly status = 500
  readonly errorCode = 1
  constructor(
    message: string,
    readonly path?: string,
  ) {
    super(message)
  }
}

export type FieldError = { path: string; message: string }

/** The caller sent something wrong. `schema` errors are 422, semantic ones 400. */
export class RequestError extends DupinError {
  readonly status: number
  readonly errorCode: number
  constructor(
    message: string,
    options: { kind?: "semantic" | "schema" | "auth" | "too_large"; errors?: FieldError[] } = {},
  ) {
    super(message)
    const kind = options.kind ?? "semantic"
    this.errors = options.errors
    ;[this.status, this.errorCode] = REQUEST_STATUS[kind]
  }
  readonly errors: FieldError[] | undefined

  override toJSON(): { detail: string; error_code: number; errors?: FieldError[] } {
    return this.errors ? { ...super.toJSON(), errors: this.errors } : super.toJSON()
  }
}

const REQUEST_STATUS = {
  semantic: [400, 4000],
  schema: [422, 4220],
  auth: [401, 4010],
  too_large: [413, 4130],
} as const

export type ModelErrorKind =
  | "rate_limit"
  | "auth"
  | "bad_request"
  | "unavailable"
  | "timeout"
  | "invalid_response"

/** The provider failed or misbehaved. Rate limits map to 429/5204, everything else to 502/5020. */
export class ModelError extends DupinError {
  readonly status: number
  readonly errorCode: number
  /**
   * The URL dupin called and what set it (`http://gw:4000/v1, set by OPENAI_BASE_URL`), without
   * credentials or query. Not in the message (the CLI prints it on a line of its own); the API's
   * `detail` and the server log add it, since "the provider is unavailable" alone does not say
   * which of several endpoints to look at.
   */
  endpoint?: string
  constructor(
    message: string,
    readonly kind: ModelErrorKind,
    readonly providerStatus?: number,
  ) {
    super(message)
    this.status = kind === "rate_limit" ? 429 : 502
    this.errorCode = kind === "rate_limit" ? 5204 : 5020
  }

  /** The message with the URL tried, for API clients and logs. */
  get detail(): string {
    return this.endpoint ? `${this.message} (endpoint: ${this.endpoint})` : this.message
  }

  override toJSON(): { detail: string; error_code: number } {
    return { detail: this.detail, error_code: this.errorCode }
  }
}

/** The request was aborted (client gone, Ctrl+C, shutdown). */
export class AbortError extends Error {
  constructor(message = "The request was aborted.") {
    super(message)
    this.name = new.target.name
  }
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
