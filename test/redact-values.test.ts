import { describe, expect, test } from "bun:test"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { History } from "../src/cli/editor/history.ts"
import { Config } from "../src/core/config.ts"
import { log, setLogLevel, setLogSink } from "../src/log.ts"
import { redactOffLoop } from "../src/offloop/redact.ts"
import { redact } from "../src/redact.ts"
import { addSecretValues } from "../src/redact-values.ts"

// Issue 21 item 8: keys without an uppercase letter (DeepSeek, OpenRouter) were redacted nowhere,
// and a configured key of no known shape was written to the history file when pasted.
describe("secrets redacted by shape and by configured value", () => {
  test("DeepSeek and OpenRouter keys are redacted by shape", () => {
    const deepseek = `sk-${"0123456789abcdef".repeat(2)}`
    const openrouter = `sk-or-v1-${"0123456789abcdef".repeat(4)}`
    expect(redact(`key ${deepseek} end`)).toBe("key [REDACTED] end")
    expect(redact(`key ${openrouter} end`)).toBe("key [REDACTED] end")
  })

  test("a configured key of no known shape is hidden in tool output, logs and history", () => {
    const mistral = "Qx7rT2mvL9aPz3Kd8WnB4cYe6HjU1sFo"
    const literal = "plain-literal-key-in-the-config"
    new Config({ model: "mistral/mistral-large-latest", apiKey: literal, env: { MISTRAL_API_KEY: mistral } })
    expect(redact(`curl said: ${mistral}`)).toBe("curl said: [REDACTED]")
    expect(redact(`echo ${literal}`)).toBe("echo [REDACTED]")

    const lines: string[] = []
    const sink = setLogSink((line) => lines.push(line))
    const level = setLogLevel("INFO")
    try {
      log.info("provider answered", { body: `bad key ${mistral}` })
    } finally {
      setLogSink(sink)
      setLogLevel(level)
    }
    expect(lines.join("\n")).not.toContain(mistral)

    const path = join(mkdtempSync(join(tmpdir(), "dupin-history-")), "history")
    const history = new History(path)
    expect(history.add(`my key is ${mistral}`)).toBe(false)
    history.add("why is the disk full?")
    expect(readFileSync(path, "utf8")).not.toContain(mistral)
  })

  test("an ordinary variable is not a secret: a namespace stays readable", () => {
    new Config({ model: "openai/gpt-4.1", env: { NAMESPACE: "monitoring-prod", OPENAI_API_KEY: "k" } })
    expect(redact("pods in monitoring-prod")).toBe("pods in monitoring-prod")
  })
})

test("a configured secret value is redacted in an output long enough to be redacted off the event loop", async () => {
  // No shape rule knows a passphrase: only the configured value can hide it.
  const secret = "correct-horse-battery-staple-42"
  addSecretValues([secret])
  const long = `${"line of ordinary output\n".repeat(20_000)}it says ${secret} here\n`
  const out = await redactOffLoop(long, new AbortController().signal)
  expect(out).not.toContain(secret)
  expect(out).toContain("[REDACTED]")
})
