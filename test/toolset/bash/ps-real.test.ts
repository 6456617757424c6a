import { afterAll, describe, expect, test } from "bun:test"
import { parseCommand } from "../../../src/toolset/bash/parse.ts"
import { classifyPipeline } from "../../../src/toolset/bash/policy.ts"
import { PS_FIELDS } from "../../../src/toolset/bash/rules/ps.ts"

/**
 * Issue 18.8: procps rereads a line it cannot parse as UNIX options as BSD options, where `e`
 * prints every process's environment. These tests run the real ps next to a process whose
 * environment holds a marker, so a grammar that reads a group differently than ps fails here.
 */
const ps = Bun.which("ps")
const MARKER = "DUPIN_PS_MARKER=c0ffee"
const victim = ps
  ? Bun.spawn(["sleep", "300"], {
      env: { DUPIN_PS_MARKER: "c0ffee", PATH: "/usr/bin:/bin" },
      stdout: "ignore",
    })
  : undefined
afterAll(() => victim?.kill())

function decide(command: string): string {
  const parsed = parseCommand(command)
  if (!parsed.ok) throw new Error(parsed.reason)
  return classifyPipeline(parsed.stages, { cwd: "/tmp" }).decision
}

function runPs(args: string[]): { code: number; leaked: boolean } {
  const run = Bun.spawnSync([ps!, ...args], { stdout: "pipe", stderr: "pipe" })
  return { code: run.exitCode, leaked: run.stdout.toString().includes(MARKER) }
}

/** Runs shell lines in one process; returns what they printed, one entry per line. */
function runScript(lines: string[]): string[] {
  const run = Bun.spawnSync(["sh", "-c", lines.join("\n")], { stdout: "pipe", stderr: "pipe" })
  return run.stdout.toString().split("\n").filter(Boolean)
}

describe.if(ps !== null)("ps grammar against the real procps", () => {
  test("each of these prints environments for real, and none runs without approval", () => {
    // The first two are the reparse: no word is the BSD `e`, ps still prints environments.
    for (const line of ["-ef -x", "-ej -x", "-auxe", "-A e", "-eH -eT", "-eo pid,args -x"]) {
      const args = line.split(" ")
      expect({ line, leaked: runPs(args).leaked }).toEqual({ line, leaked: true })
      expect({ line, decision: decide(`ps ${line}`) }).not.toEqual({ line, decision: "allow" })
    }
  })

  test("a reparse that could meet an `e` does not run without approval", () => {
    for (const line of [
      "ps -ue",
      "ps -e -u nosuchuser",
      "ps -ef -t nosuchtty",
      "ps -e -o pid,bogus",
      "ps -eF -o pid,args",
      "ps -eL -T",
      "ps -e 1,2",
      "ps -ey",
      "ps -eN",
      "ps -o e",
      "ps -p 1 -o pid,user -k bogus",
      "ps -qo pid,user",
    ])
      expect({ line, decision: decide(line) }).not.toEqual({ line, decision: "allow" })
  })

  // Every pairing of these that dupin allows must print no environment on the real ps, with the
  // marked process among those selected (exit 1 alone is "nothing matched").
  const pid = String(victim?.pid)
  const GROUPS = ["-ef", "-eF", "-eH", "-eL", "-eT", "-em", "-ej", "-ec", "-ew"]
  const OTHERS = [
    ...["-ww", "-A", "-d", "-eH", "-eT", "-el", "-o pid,user,args", "-O user", "-s 1", "-C sleep"],
    ...["-u 0", "-G 0", "--sort=-pcpu,user", "--forest", "--cols 200"],
    ...[`-p ${pid}`, `-q ${pid}`, `--pid ${pid}`, pid],
  ]
  test("no allowed pairing prints environments for real", () => {
    const lines = GROUPS.flatMap((a) => OTHERS.map((b) => `${a} ${b}`)).filter(
      (l) => decide(`ps ${l}`) === "allow",
    )
    expect(lines.length).toBeGreaterThan(100)
    // One shell runs them all: a spawn per line from the test costs seconds on a loaded host.
    expect(
      runScript(
        lines.map(
          (l) => `ps ${l} 2>/dev/null | grep -q '[${MARKER[0]}]${MARKER.slice(1)}' && echo "ps ${l}"`,
        ),
      ),
    ).toEqual([])
  }, 120_000)

  test("every format and sort name dupin accepts is one ps knows", () => {
    // ps refuses a whole list for one unknown name, so one run per list checks them all.
    const fields = [...PS_FIELDS]
    const checks = [`-e -o ${fields.join(",")}`, `-e --sort=${fields.map((f) => `-${f}`).join(",")}`]
    expect(runScript(checks.map((c) => `ps ${c} >/dev/null 2>&1 || echo "ps ${c}"`))).toEqual([])
  }, 60_000)

  test("everyday lines still run without approval", () => {
    for (const line of [
      "ps aux",
      "ps -ef",
      "ps -eo pid,ppid,comm,%cpu,%mem --sort=-%cpu",
      "ps -C kube-apiserver -o pid",
      "ps -ef --forest",
      "ps -p 1 -o pid,user,etime,args",
      "ps auxww --sort=-rss",
    ])
      expect({ line, decision: decide(line) }).toEqual({ line, decision: "allow" })
  })
})
