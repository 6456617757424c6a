/**
 * A YAML command line that is one plain command runs without a shell (toolset/shell.ts): the argv
 * dupin builds must be exactly the one bash would have built, checked against real bash.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { commandArgv, shellArgv } from "../../src/toolset/shell.ts"

let bin: string
let env: Record<string, string>

beforeAll(() => {
  bin = mkdtempSync(join(tmpdir(), "dupin-command-argv-"))
  // Prints each argument it gets, bracketed, so bash's argv and ours can be compared.
  writeFileSync(join(bin, "args"), '#!/bin/sh\nfor a in "$0" "$@"; do printf "[%s]" "$a"; done\n')
  chmodSync(join(bin, "args"), 0o755)
  env = {
    PATH: `${bin}:/usr/bin:/bin`,
    DUPIN_P_ns: "prod ns",
    DUPIN_P_hostile: `a'b"c$(touch /tmp/x)\`id\` *;|&<>\\ ~{x,y}`,
    DUPIN_P_empty: "",
  }
})

afterAll(() => rmSync(bin, { recursive: true, force: true }))

async function run(argv: string[]): Promise<string> {
  const proc = Bun.spawn(argv, { env, stdout: "pipe", stderr: "pipe" })
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()])
  await proc.exited
  return out + err
}

describe("plain commands run without a shell, with the argv bash builds", () => {
  const plain = [
    "args get pods",
    'args get pods -n "$DUPIN_P_ns"',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash reference under test
    'args --namespace="${DUPIN_P_ns}" -o=wide',
    'args "$DUPIN_P_hostile" x',
    'args "$DUPIN_P_empty" ""',
    "args 'single' \"double\"joined'x'",
    "args   spaced\t\ttabs   ",
    "args a=b user@host:/p,q 50% +1 -- -x",
  ]
  for (const script of plain) {
    test(JSON.stringify(script), async () => {
      const argv = commandArgv(script, env)
      expect(argv[0]).toBe("args")
      expect(await run(argv)).toBe(await run(shellArgv(script, env)))
    })
  }
})

describe("anything else goes to the shell", () => {
  const shelled = [
    "args $DUPIN_P_ns", // unquoted: bash splits it
    'args "$HOME"', // not one of the call's own values
    'args "$DUPIN_P_missing"',
    'args "$DUPIN_P_ns}"',
    "args *",
    "args ~",
    "args {a,b}",
    "args a; args b",
    "args a | args b",
    "args a > /tmp/out",
    "args $(id)",
    "args `id`",
    "args a\\ b",
    "args 'multi word'",
    "A=1 args",
    "cd /tmp",
    "printf x",
    "echo --help",
    "true --version",
    "'args' x",
    "no-such-program-here x",
    "args\nargs",
    "# comment",
  ]
  for (const script of shelled) {
    test(JSON.stringify(script), () => {
      expect(commandArgv(script, env)).toEqual(shellArgv(script, env))
    })
  }
  test("a program not on PATH keeps bash's own message", async () => {
    const argv = commandArgv("no-such-program-here", env)
    expect(await run(argv)).toContain("command not found")
  })
})
