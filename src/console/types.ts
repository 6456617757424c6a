/** What the console keeps of a conversation: the transcript it shows and the history it sends back. */

export type Truncation = { tool_call_id: string; tool_name?: string; original_token_count?: number }

export type Metadata = {
  tokens?: Record<string, number>
  max_tokens?: number
  max_output_tokens?: number
  truncations?: Truncation[]
}

export type PendingApproval = {
  tool_call_id: string
  tool_name: string
  description: string
  params: Record<string, unknown>
}

export type ToolStatus = "running" | "success" | "error" | "approval_required" | "stopped"

export type ToolEntry = {
  kind: "tool"
  id: string
  name: string
  description?: string
  args?: Record<string, unknown>
  status: ToolStatus
  output?: string
  error?: string
  startedAt: number
  endedAt?: number
  truncated?: boolean
  /** A stored call (an investigation's): no running time to show. */
  untimed?: boolean
}

export type Entry =
  | { kind: "user"; text: string }
  | { kind: "assistant"; text: string; streaming: boolean }
  | ToolEntry
  | { kind: "notice"; text: string }
  | { kind: "error"; code: number; message: string }

export type Decision = { approved: boolean; feedback: string }

export type Conversation = {
  id: string
  title: string
  updatedAt: number
  entries: Entry[]
  /** The last `conversation_history` the server returned: a follow-up sends it back as is. */
  history: unknown[] | null
  /** Calls waiting for a decision, from the last `approval_required` event. */
  pending: PendingApproval[]
  decisions: Record<string, Decision>
  metadata?: Metadata
}
