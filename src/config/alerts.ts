/**
 * `alerts:` and `store:` (CONTRACT §10): settings for alert-triggered investigations and the
 * store that keeps them. Sink URLs and headers stay templates until a delivery reads them, so an
 * unset `{{ env.X }}` fails that delivery (recorded in `deliveries`), never the start.
 */
import { homedir } from "node:os"
import { join } from "node:path"
import { type Static, Type } from "@sinclair/typebox"
import type { Env } from "./env.ts"

const WebhookSinkSchema = Type.Object(
  {
    type: Type.Literal("webhook"),
    url: Type.String({ minLength: 1 }),
    headers: Type.Optional(Type.Record(Type.String(), Type.String())),
  },
  { additionalProperties: false },
)

const SlackSinkSchema = Type.Object(
  { type: Type.Literal("slack"), webhook_url: Type.String({ minLength: 1 }) },
  { additionalProperties: false },
)

export const AlertsSchema = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    max_concurrent: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })),
    max_queued: Type.Optional(Type.Integer({ minimum: 1 })),
    dedupe_window: Type.Optional(Type.Integer({ minimum: 0 })),
    model: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Null()])),
    sinks: Type.Optional(
      Type.Array(
        Type.Union([WebhookSinkSchema, SlackSinkSchema], {
          expected: "{ type: webhook, url, headers? } or { type: slack, webhook_url }",
        }),
      ),
    ),
  },
  { additionalProperties: false },
)

export const StoreSchema = Type.Object(
  {
    path: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Null()])),
    url: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Null()])),
  },
  { additionalProperties: false },
)

export type SinkSettings = Static<typeof WebhookSinkSchema> | Static<typeof SlackSinkSchema>

export type AlertSettings = {
  enabled: boolean
  maxConcurrent: number
  maxQueued: number
  /** Seconds. */
  dedupeWindow: number
  /** A modelList key or provider id; undefined = the default model. */
  model: string | undefined
  sinks: readonly SinkSettings[]
}

export type StoreSettings =
  | { engine: "sqlite"; path: string }
  /** `url` may hold `{{ env.X }}` (a password): expanded where the store opens. */
  | { engine: "postgres"; url: string }

export function alertSettings(raw: Static<typeof AlertsSchema> = {}): AlertSettings {
  return {
    enabled: raw.enabled ?? false,
    maxConcurrent: raw.max_concurrent ?? 2,
    maxQueued: raw.max_queued ?? 200,
    dedupeWindow: raw.dedupe_window ?? 3600,
    model: raw.model ?? undefined,
    sinks: raw.sinks ?? [],
  }
}

export function storeSettings(raw: Static<typeof StoreSchema> = {}, env: Env): StoreSettings {
  if (raw.url) return { engine: "postgres", url: raw.url }
  if (raw.path) return { engine: "sqlite", path: raw.path }
  const state = env.XDG_STATE_HOME || join(env.HOME || homedir(), ".local", "state")
  return { engine: "sqlite", path: join(state, "dupin", "dupin.db") }
}
