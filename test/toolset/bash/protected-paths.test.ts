import { afterAll, describe, expect, test } from "bun:test"
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { BashTool } from "../../../src/toolset/bash/bash-tool.ts"

// The composition hands the tool dupin's config file, env files and KUBECONFIG entries; they must
// reach the policy through the tool's options, not only through the built-in patterns.
const dir = mkdtempSync(join(tmpdir(), "dupin-protected-"))
const config = join(dir, "dupin.yaml")
writeFileSync(config, "server:\n  auth_token: not-for-the-model\n")
symlinkSync(config, join(dir, "innocent.txt"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("protected paths given to the bash tool", () => {
  const tool = new BashTool({ cwd: dir, protectedPaths: [config] })

  test.each([`cat ${config}`, `head -n 1 ${join(dir, "innocent.txt")}`, "grep auth_token dupin.yaml"])(
    "%s is refused even approved",
    (command) => {
      expect(tool.evaluate(command).verdict?.decision).toBe("deny")
    },
  )

  test("a file beside it is an ordinary read", () => {
    writeFileSync(join(dir, "app.log"), "ok\n")
    expect(tool.evaluate(`cat ${join(dir, "app.log")}`).verdict?.decision).toBe("allow")
  })
})
