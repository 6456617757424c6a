import { describe, expect, test } from "bun:test"
import { parseCommand } from "../../../src/toolset/bash/parse.ts"
import { classifyPipeline } from "../../../src/toolset/bash/policy.ts"
import { programRules } from "../../../src/toolset/bash/rules/registry.ts"
import type { Decision } from "../../../src/toolset/bash/verdict.ts"

/**
 * Every program rule carries examples of what it allows, asks about and refuses. Each runs
 * through the real policy entry point: an example that lies, or a rule without examples, fails.
 */
const PROTECTED = ["/srv/kube/prod.conf", "/opt/dupin/config.yaml"]
const DECISIONS: Record<"allow" | "ask" | "deny", Decision> = { allow: "allow", ask: "approve", deny: "deny" }

function decide(command: string): Decision {
  const parsed = parseCommand(command)
  if (!parsed.ok) throw new Error(`${command}: ${parsed.reason}`)
  return classifyPipeline(parsed.stages, { cwd: "/tmp", protectedPaths: PROTECTED }).decision
}

describe("program rule examples", () => {
  for (const [name, rule] of programRules()) {
    test(name, () => {
      const { allow = [], ask = [], deny = [] } = rule.examples
      // What the rule lets through or asks about is the part a reader needs shown.
      expect({ name, examples: allow.length + ask.length }).not.toEqual({ name, examples: 0 })
      // A program with a form refused even with approval shows one.
      if (rule.refuse || rule.dumps) expect({ name, refused: deny.length }).not.toEqual({ name, refused: 0 })
      for (const [kind, commands] of Object.entries({ allow, ask, deny }) as Array<
        [keyof typeof DECISIONS, readonly string[]]
      >)
        for (const command of commands)
          expect({ command, decision: decide(command) }).toEqual({ command, decision: DECISIONS[kind] })
    })
  }

  test("the registry holds every family", () => {
    expect(programRules().size).toBeGreaterThan(200)
  })
})
