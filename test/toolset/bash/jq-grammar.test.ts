import { describe, expect, test } from "bun:test"
import { jqFilterVerdict } from "../../../src/toolset/bash/rules/jq-filter.ts"

const IDIOMS = [
  ".",
  ".a",
  ".a.b",
  '.["a"]',
  ".[0]",
  ".[]",
  ".[]?",
  "..",
  ".a?",
  '.a."b-c"',
  ".[1:3]",
  ".[:2]",
  '.items[] | select(.status.phase != "Running") | {ns: .metadata.namespace, name: .metadata.name, phase: .status.phase}',
  ".items[] | .spec.containers[].image",
  ".items | length",
  "[.items[] | .metadata.name] | sort | unique",
  "map(select(.a > 1))",
  '.a // "none"',
  "if .a then 1 elif .b then 2 else 3 end",
  ". as $x | $x",
  ".items[] as $i | $i.metadata.name",
  "reduce .[] as $x (0; . + $x)",
  "foreach .[] as $x (0; . + 1; [$x, .])",
  '"\\(.a) is \\(.b)"',
  "@base64",
  "[.a, .b] | @tsv",
  '@sh "echo \\(.a)"',
  "{(.a): 1}",
  "{a, b: .c}",
  '{"x": .y | tostring}',
  "-1",
  ".a - 1",
  ".a and .b or (.c | not)",
  'to_entries | map("\\(.key)=\\(.value)") | join(",")',
  "limit(3; .[])",
  'getpath(["a"])',
  "group_by(.a) | map({k: .[0].a, n: length})",
  ".metadata.labels.env",
  'select(.name == "env")',
  "now | todate",
  "[paths]",
  ".a |= 3",
  'test("a#b")',
  "sort_by(.metadata.creationTimestamp) | last",
]

describe("jq filters inside the grammar run without approval", () => {
  for (const filter of IDIOMS) {
    test(JSON.stringify(filter), () => expect(jqFilterVerdict(filter).decision).toBe("allow"))
  }
})

describe("jq filters outside the grammar need approval", () => {
  for (const filter of [
    // The red team's module read, and its neighbours.
    'import "config" as $c {search: "~/.docker"}; $c',
    'import "config" as $c; $c',
    'include "x"; .',
    '"\\(import "a" as $b; $b)"',
    '"x" as $y | "\\(include "a"; .)"',
    "x::y",
    // Reads beyond the input, and side channels.
    "input_filename",
    "input",
    "inputs",
    "[inputs]",
    "input_line_number",
    "$__loc__",
    "{$__loc__}",
    "$__prog_args",
    "debug",
    'debug("x")',
    "stderr",
    "halt",
    "halt_error",
    "get_search_list",
    "modulemeta",
    "builtins",
    // Definitions, labels, comments, and anything else outside the subset.
    "def f: 1; f",
    ". as $x | def f: 1; f",
    "label $f | 1",
    "# comment\n.",
    ". # hidden \\\n| input_filename",
    "try error catch .",
    ". as [$a] | $a",
    ".a?//1",
    "foo(1)",
    "1 + 2 as $x | $x",
    "if . then 1 end",
  ]) {
    test(JSON.stringify(filter), () => expect(jqFilterVerdict(filter).decision).toBe("approve"))
  }
})

describe("jq filters that read the environment are refused even approved", () => {
  for (const filter of [
    "$ENV",
    "$ENV.HOME",
    "$ ENV",
    "$ # comment\nENV",
    "env",
    "env.X",
    "env | keys",
    '"\\(env)"',
    '@sh "\\(env.HOME)"',
    '. # "\n| env',
    "{a: env}",
  ]) {
    test(JSON.stringify(filter), () => expect(jqFilterVerdict(filter).decision).toBe("deny"))
  }
})
