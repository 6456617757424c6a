import { describe, expect, test } from "bun:test"
import { parseCommand } from "../../../src/toolset/bash/parse.ts"

describe("parseCommand accepts literal pipelines", () => {
  const cases: Array<[string, string[][]]> = [
    ["kubectl get pods", [["kubectl", "get", "pods"]]],
    [
      "kubectl get pods | grep x | head -n 5",
      [
        ["kubectl", "get", "pods"],
        ["grep", "x"],
        ["head", "-n", "5"],
      ],
    ],
    [`echo 'a b' "c d" e\\ f 'g'"h"i`, [["echo", "a b", "c d", "e f", "ghi"]]],
    [`echo "a|b" 'c;d' "\\$x" \\;`, [["echo", "a|b", "c;d", "$x", ";"]]],
    [
      "kubectl get pods -o jsonpath='{.items[*].name}'",
      [["kubectl", "get", "pods", "-o", "jsonpath={.items[*].name}"]],
    ],
    ["kubectl get pods -o jsonpath={.x}", [["kubectl", "get", "pods", "-o", "jsonpath={.x}"]]],
    ["kubectl logs p 2>&1", [["kubectl", "logs", "p"]]],
    ["  uptime   # load\n", [["uptime"]]],
    ["echo a\\\nb", [["echo", "ab"]]],
    ["echo ''", [["echo", ""]]],
  ]
  for (const [source, stages] of cases) {
    test(JSON.stringify(source), () => expect(parseCommand(source)).toEqual({ ok: true, stages }))
  }
})

describe("parseCommand fails closed", () => {
  const cases: Array<[string, string]> = [
    ["", "empty"],
    ["# nothing", "empty"],
    ["a; b", "one pipeline"],
    ["a;", "one pipeline"],
    ["a && b", "&&"],
    ["a || b", "&&"],
    ["a &", "Backgrounding"],
    ["a\nb", "one pipeline"],
    ["a > f", "Redirections"],
    ["a 2>&1 | b", "only accepted at the end"],
    ["a < f", "Redirections"],
    ["a <<< x", "Here-strings"],
    ["a <<E\nx\nE", "Here-documents"],
    ["a $(b)", "command substitution"],
    ["a `b`", "command substitution"],
    ['a "$(b)"', "command substitution"],
    ["a --x=$(b)", "command substitution"],
    ["a $X", "variable expansion"],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash parameter expansion under test
    ['a "${X}"', "parameter expansion"],
    ["a $((1))", "arithmetic"],
    ["a <(b)", "process substitution"],
    ["a *", "glob"],
    ["a x?", "glob"],
    ["a [x]", "glob"],
    ["a {x,y}", "brace"],
    ["a ~/x", "tilde"],
    ["a --f=~/x", "tilde"],
    ["a $'x'", "ANSI-C"],
    ['a $"x"', "locale"],
    ["X=1 a", "assignments"],
    ["(a)", "subshell"],
    ["{ a; }", "group"],
    ["f() { a; }", "function"],
    ["if a; then b; fi", "`if`"],
    ["[[ a ]]", "[[ … ]]"],
    ["time a", "`time`"],
    ["! a", "`time` and `!`"],
    ["a |& b", "`|&`"],
    ["a 'unterminated", "not valid shell syntax"],
    ["a\0b", "NUL"],
  ]
  for (const [source, reason] of cases) {
    test(JSON.stringify(source), () => {
      const parsed = parseCommand(source)
      expect(parsed.ok).toBe(false)
      if (!parsed.ok) expect(parsed.reason.toLowerCase()).toContain(reason.toLowerCase())
    })
  }
})
