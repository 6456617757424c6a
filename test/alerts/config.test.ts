import { expect, test } from "bun:test"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Config } from "../../src/config/config.ts"

function file(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), "dupin-alerts-config-")), "config.yaml")
  writeFileSync(path, text)
  return path
}

test("alerts, store and server.public_url load with CONTRACT §10's keys and defaults", () => {
  const config = Config.loadFromFile(
    file(`model: openai/gpt-4o
alerts:
  enabled: true
  max_concurrent: 3
  sinks:
    - { type: webhook, url: "https://hooks.example/dupin", headers: { X-Token: "{{ env.HOOK_TOKEN }}" } }
    - { type: slack, webhook_url: "{{ env.SLACK_WEBHOOK_URL }}" }
store: { url: "postgres://dupin@db/dupin" }
server: { public_url: "https://dupin.example.internal/" }
`),
    // An unset sink variable does not stop the load: it fails that delivery only.
    { env: {} },
  )
  expect(config.alerts).toMatchObject({ enabled: true, maxConcurrent: 3, maxQueued: 200, dedupeWindow: 3600 })
  expect(config.alerts.sinks).toHaveLength(2)
  expect(config.store).toEqual({ engine: "postgres", url: "postgres://dupin@db/dupin" })
  expect(config.server.publicUrl).toBe("https://dupin.example.internal")
  const defaults = new Config({ env: { HOME: "/home/x" } })
  expect(defaults.alerts.enabled).toBe(false)
  expect(defaults.store).toEqual({ engine: "sqlite", path: "/home/x/.local/state/dupin/dupin.db" })
  expect(new Config({ env: { XDG_STATE_HOME: "/state" } }).store).toEqual({
    engine: "sqlite",
    path: "/state/dupin/dupin.db",
  })
})

test("unknown keys, bad sink types and bad limits are refused at load with their path", () => {
  expect(() => Config.loadFromFile(file("alerts: { enabled: true, bogus: 1 }\n"), { env: {} })).toThrow(
    "alerts.bogus: unknown key",
  )
  expect(() => Config.loadFromFile(file("alerts: { max_concurrent: 0 }\n"), { env: {} })).toThrow(
    "alerts.max_concurrent",
  )
  expect(() =>
    Config.loadFromFile(file("alerts: { sinks: [{ type: pagerduty, url: x }] }\n"), { env: {} }),
  ).toThrow("alerts.sinks[0]: expected { type: webhook, url, headers? } or { type: slack, webhook_url }")
  // A webhook sink without its url says what it needs too, not TypeBox's "expected union value".
  expect(() => Config.loadFromFile(file("alerts: { sinks: [{ type: webhook }] }\n"), { env: {} })).toThrow(
    "alerts.sinks[0]: expected { type: webhook, url, headers? } or { type: slack, webhook_url }",
  )
  expect(() => Config.loadFromFile(file("store: { file: x }\n"), { env: {} })).toThrow(
    "store.file: unknown key",
  )
})
