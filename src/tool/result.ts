import type { SpilledOutput } from "./spilled-output.ts"

export enum ToolResultStatus {
  SUCCESS = "success",
  ERROR = "error",
  NO_DATA = "no_data",
  APPROVAL_REQUIRED = "approval_required",
}

export type StructuredToolResultInit = {
  status: ToolResultStatus
  data?: unknown
  error?: string | null
  params?: Record<string, unknown>
  /** Exit code of the process behind the tool, when there was one. */
  returnCode?: number | null
  /** The command line or URL the tool ran, for logs and approval prompts. */
  invocation?: string
  /** `data` is the start of a long output whose whole (redacted) text is in this file. */
  spill?: SpilledOutput
}

/** What a tool returns. Tool failures are results the model sees; only infrastructure throws. */
export class StructuredToolResult {
  status: ToolResultStatus
  data: unknown
  error: string | null
  params: Record<string, unknown>
  returnCode: number | null
  invocation: string | undefined
  /** Where the whole of a long output is: `data` is its start (see SpilledOutput). */
  spill: SpilledOutput | undefined

  constructor(init: StructuredToolResultInit) {
    this.status = init.status
    this.data = init.data ?? null
    this.error = init.error ?? null
    this.params = init.params ?? {}
    this.returnCode = init.returnCode ?? null
    this.invocation = init.invocation
    this.spill = init.spill
  }

  static error(error: string, params: Record<string, unknown> = {}): StructuredToolResult {
    return new StructuredToolResult({ status: ToolResultStatus.ERROR, error, params })
  }

  /** `data` as text: strings as they are, anything else as JSON. */
  dataText(): string {
    if (this.data === null || this.data === undefined) return ""
    return typeof this.data === "string" ? this.data : JSON.stringify(this.data, null, 2)
  }

  /** The spec's tool result object (`status`, `data`, `error`, `params`). */
  toJSON(): { status: string; data: unknown; error: string | null; params: Record<string, unknown> } {
    const data = this.data === null || typeof this.data === "string" ? this.data : this.dataText()
    return { status: this.status, data, error: this.error, params: this.params }
  }
}
