import type { Toolset, ToolsetStatus } from "./toolset.ts"

/** One toolset's state as a face reports it (`dupin toolsets --json`, `/tools`, `/api/info`). */
export type ToolsetState = {
  name: string
  enabled: boolean
  status: ToolsetStatus
  error: string | null
  /** When its prerequisites were last checked (ISO 8601), null if never. */
  checked_at: string | null
  docs_url: string | null
  tools: string[]
  /** MCP servers only: how dupin reaches it (stdio, streamable-http, sse). */
  transport?: string
  /** MCP servers only: the protocol version negotiated, null until connected. */
  protocol_version?: string | null
}

type Reported = Exclude<keyof ToolsetState, "transport" | "protocol_version">

/** How each field is read, in the key order every face's JSON keeps. */
const FIELDS: { [K in Reported]: (t: Toolset) => ToolsetState[K] } = {
  name: (t) => t.name,
  enabled: (t) => t.enabled,
  status: (t) => t.status,
  error: (t) => t.error ?? null,
  checked_at: (t) => t.checkedAt?.toISOString() ?? null,
  docs_url: (t) => t.docsUrl ?? null,
  tools: (t) => t.tools.map((tool) => tool.name),
}

/**
 * The `fields` a face shows of one toolset, in `FIELDS` order whatever order they are named in,
 * then the toolset's own status fields (MCP: transport and protocol version, never the URL or
 * headers: they can hold tokens).
 */
export function toolsetState<F extends Reported>(
  toolset: Toolset,
  fields: readonly F[],
): Pick<ToolsetState, F | "transport" | "protocol_version"> {
  const row: Record<string, unknown> = {}
  for (const [key, read] of Object.entries(FIELDS)) if (fields.includes(key as F)) row[key] = read(toolset)
  return { ...row, ...toolset.statusFields } as Pick<ToolsetState, F | "transport" | "protocol_version">
}

/**
 * Enabled in config but not checked yet: its prerequisite check has not settled. A request does
 * not wait for it: the toolset is offered, and a call to one of its tools waits for the check
 * (`ToolExecutor.run`), so the first question after start does not wait for a `kubectl version`.
 */
export function checkPending(toolset: Toolset): boolean {
  return toolset.enabled && toolset.checkedAt === undefined
}

/** What the model is offered and the system prompt describes: passed its checks, or not checked yet. */
export function offeredToModel(toolset: Toolset): boolean {
  return toolset.status === "enabled" || checkPending(toolset)
}
