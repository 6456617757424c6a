import { expect, test } from "bun:test"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Config } from "../../src/core/config.ts"

function errorFor(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), "dupin-typo-")), "config.yaml")
  writeFileSync(path, text)
  try {
    Config.loadFromFile(path, { env: {} })
  } catch (error) {
    return (error as Error).message
  }
  return "no error"
}

// Issue 21 item 9: a typo listed every allowed key but did not say which one was meant.
test("an unknown config key names the key it most likely meant", () => {
  expect(errorFor("custom_toolset: [a.yaml]\n")).toContain(
    "(top level).custom_toolset: unknown key. Did you mean custom_toolsets?",
  )
  expect(errorFor("modelList:\n  fast:\n    model: openai/gpt-4.1\n    tempreature: 0\n")).toContain(
    "modelList.fast.tempreature: unknown key. Did you mean temperature?",
  )
  // Nothing close: no guess.
  expect(errorFor("colour: blue\n")).not.toContain("Did you mean")
})
