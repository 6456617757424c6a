import { ConfigError } from "../errors.ts"
import { DEFAULT_TOOL_LIMITS, type ToolLimits } from "../tool/tool.ts"
import { type Env, expandEnv, parseNumber } from "./env.ts"
import { envTemplateNames } from "./env-template.ts"
import type { FollowUpAction } from "./schema.ts"

export type ImageLimits = { maxImages: number; maxImageBytes: number }

export type ServerSettings = {
  host: string
  port: number
  /**
   * Read lazily: a `{{ env.X }}` whose X is unset throws a ConfigError naming the key and the
   * variable only when the value is read (`serve`), never at load (CONTRACT §4).
   */
  readonly authToken: string | undefined
  readonly approvalSecret: string | undefined
  /** Seconds a pending approval stays valid. */
  approvalTtl: number
  maxBodyBytes: number
  /**
   * Seconds a request's header block may take to arrive; 0 turns the header guard off. Unset:
   * the server's default for its listen address (server.ts `headerTimeoutFor`).
   */
  headerTimeout: number | undefined
  /**
   * Seconds of lame duck after SIGTERM (CONTRACT §5): `/readyz` says 503 while requests are still
   * served, so a load balancer moves away before anything is refused.
   */
  drainDelay: number
  /** Serve the web console at `GET /` (CONTRACT §9). */
  console: boolean
  /** Base URL for links back to dupin in delivered findings; undefined when unset. */
  publicUrl: string | undefined
}

/** Model calls one run may make (config `max_steps`); the agent loop's default too. */
export const DEFAULT_MAX_STEPS = 100

export const DEFAULT_IMAGE_LIMITS: ImageLimits = { maxImages: 16, maxImageBytes: 20_000_000 }

export const DEFAULT_FOLLOW_UP_ACTIONS: readonly FollowUpAction[] = Object.freeze([
  {
    id: "logs",
    action_label: "Check logs",
    pre_action_notification_text: "Fetching the relevant logs...",
    prompt: "Show me the logs relevant to this problem and what they say.",
  },
  {
    id: "fix",
    action_label: "How do I fix it?",
    pre_action_notification_text: "Working out the fix...",
    prompt: "Give me the exact steps or commands to fix this, and how to verify the fix.",
  },
  {
    id: "prevent",
    action_label: "Prevent it",
    pre_action_notification_text: "Looking at how to prevent this...",
    prompt: "How can we prevent this from happening again (alerts, limits, probes, configuration)?",
  },
])

type RawLimits = {
  tool_timeout_default?: number | undefined
  tool_timeout_max?: number | undefined
  tool_output_max_bytes?: number | undefined
  max_parallel_tool_calls?: number | undefined
  request_tool_output_max_bytes?: number | undefined
  tool_result_echo_max_bytes?: number | undefined
  max_images?: number | undefined
  max_image_bytes?: number | undefined
  tool_definitions_budget_pct?: number | undefined
}

export function toolLimits(raw: RawLimits = {}): ToolLimits {
  const limits = {
    timeoutDefault: raw.tool_timeout_default ?? DEFAULT_TOOL_LIMITS.timeoutDefault,
    timeoutMax: raw.tool_timeout_max ?? DEFAULT_TOOL_LIMITS.timeoutMax,
    outputMaxBytes: raw.tool_output_max_bytes ?? DEFAULT_TOOL_LIMITS.outputMaxBytes,
    maxParallelCalls: raw.max_parallel_tool_calls ?? DEFAULT_TOOL_LIMITS.maxParallelCalls,
    requestOutputMaxBytes: raw.request_tool_output_max_bytes ?? DEFAULT_TOOL_LIMITS.requestOutputMaxBytes,
    echoMaxBytes: raw.tool_result_echo_max_bytes ?? DEFAULT_TOOL_LIMITS.echoMaxBytes,
  }
  if (limits.timeoutDefault > limits.timeoutMax) {
    throw new ConfigError(
      `limits.tool_timeout_default (${limits.timeoutDefault}) is larger than limits.tool_timeout_max (${limits.timeoutMax}).`,
      "limits",
    )
  }
  return limits
}

export function imageLimits(raw: RawLimits = {}): ImageLimits {
  return {
    maxImages: raw.max_images ?? DEFAULT_IMAGE_LIMITS.maxImages,
    maxImageBytes: raw.max_image_bytes ?? DEFAULT_IMAGE_LIMITS.maxImageBytes,
  }
}

type RawServer = {
  host?: string | undefined
  port?: number | undefined
  auth_token?: string | null | undefined
  approval_secret?: string | null | undefined
  approval_ttl?: number | undefined
  max_body_bytes?: number | undefined
  header_timeout?: number | undefined
  drain_delay?: number | undefined
  console?: boolean | undefined
  public_url?: string | null | undefined
}

/**
 * Server settings: file values, then `SVC_*` variables on top (CONTRACT §3). `where` names the
 * config file in messages. The secrets stay templates until read, so `ask`, `models` and the
 * library load a config whose server secrets come from variables only the server's host sets.
 */
export function serverSettings(raw: RawServer = {}, env: Env, where?: string): ServerSettings {
  const authToken = lazySecret(env.SVC_AUTH_TOKEN || raw.auth_token, env, keyName(where, "auth_token"))
  const approvalSecret = lazySecret(
    env.SVC_APPROVAL_SECRET || raw.approval_secret,
    env,
    keyName(where, "approval_secret"),
  )
  return {
    host: env.SVC_HOST || raw.host || "127.0.0.1",
    port: parseNumber(env.SVC_PORT, "SVC_PORT", { min: 0, max: 65535, integer: true }) ?? raw.port ?? 5050,
    get authToken() {
      return authToken()
    },
    get approvalSecret() {
      return approvalSecret()
    },
    approvalTtl: raw.approval_ttl ?? 3600,
    maxBodyBytes: raw.max_body_bytes ?? 20_000_000,
    headerTimeout: raw.header_timeout,
    drainDelay:
      parseNumber(env.SVC_DRAIN_DELAY, "SVC_DRAIN_DELAY", { min: 0, max: 600 }) ?? raw.drain_delay ?? 5,
    console: raw.console ?? true,
    publicUrl: raw.public_url?.replace(/\/+$/, "") || undefined,
  }
}

/** Reads both server secrets, so an unset `{{ env.X }}` fails where the server starts (ConfigError). */
export function requireServerSecrets(settings: ServerSettings): void {
  void settings.authToken
  void settings.approvalSecret
}

/**
 * The server secrets whose variables are set, for redaction: a secret that cannot be expanded has
 * no value to leak, and reading it must not fail a command that never serves.
 */
export function knownServerSecrets(settings: ServerSettings): string[] {
  const known: string[] = []
  for (const read of [() => settings.authToken, () => settings.approvalSecret]) {
    try {
      const value = read()
      if (value) known.push(value)
    } catch {
      // An unset variable: `serve` reports it when it reads the value.
    }
  }
  return known
}

function keyName(file: string | undefined, key: string): string {
  return file ? `${file}: server.${key}` : `server.${key}`
}

/**
 * A value with `{{ env.X }}` expanded at its first read (errors name `where` and X), then kept.
 * A configured secret that expands to nothing is an error too: an empty `auth_token` would serve
 * without authentication, silently, because a variable was left blank on one host.
 */
function lazySecret(raw: string | null | undefined, env: Env, where: string): () => string | undefined {
  let value: { v: string | undefined } | undefined
  return () => {
    if (value) return value.v
    const expanded = raw ? expandEnv(raw, env, where) : undefined
    if (raw && expanded?.trim() === "") {
      const names = envTemplateNames(raw)
      const cause =
        names.length > 0
          ? `${names.join(", ")} ${names.length > 1 ? "are" : "is"} set but empty`
          : "it is blank"
      throw new ConfigError(
        `${where} is empty (${cause}): give it a value, or remove the key to serve without it.`,
        where,
      )
    }
    value = { v: expanded || undefined }
    return value.v
  }
}
