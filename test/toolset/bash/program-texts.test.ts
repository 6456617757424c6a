import { afterAll, describe, expect, test } from "bun:test"
import { mkdirSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { ToolResultStatus } from "../../../src/tool/result.ts"
import { withSafeModes } from "../../../src/toolset/bash/bash-tool.ts"
import { CANARY, fill, Sandbox } from "./harness.ts"

/**
 * The red team's program-text forms, run for real through BashTool without approval against GNU
 * sed, gawk, mawk and jq: a marker that must not appear, a victim that must stay unchanged, a
 * secret that must not reach the output. The idioms must still run, sandbox flags and all.
 */
const sandbox = new Sandbox()
afterAll(() => rmSync(sandbox.dir, { recursive: true, force: true }))

const SECRET = "secret-file-4d1e"
const SECRET_FILE = join(sandbox.dir, "secret.txt")
writeFileSync(SECRET_FILE, `${SECRET}\n`)
const DOCKER_SECRET = "docker-auth-9c2b"
mkdirSync(join(sandbox.home, ".docker"), { recursive: true })
writeFileSync(join(sandbox.home, ".docker", "config.json"), `{"auths":{"r":{"auth":"${DOCKER_SECRET}"}}}\n`)

const fillAll = (template: string, paths: { marker: string; victim: string }) =>
  fill(template, { ...paths, home: sandbox.home }).replaceAll("{{SECRET}}", SECRET_FILE)

async function attempt(template: string, approved = false) {
  const paths = sandbox.fresh()
  const result = await sandbox.run(fillAll(template, paths), { approved })
  return {
    result,
    output: `${result.dataText()}\n${result.error ?? ""}`,
    marker: sandbox.markerExists(paths.marker),
    victim: sandbox.victimIntact(paths.victim),
  }
}

function expectNothingHappened(outcome: Awaited<ReturnType<typeof attempt>>): void {
  expect(outcome.result.status).not.toBe(ToolResultStatus.SUCCESS)
  expect(outcome.marker).toBe(false)
  expect(outcome.victim).toBe(true)
  expect(outcome.output).not.toContain(SECRET)
  expect(outcome.output).not.toContain(DOCKER_SECRET)
  expect(outcome.output).not.toContain(CANARY)
}

const SED_ATTACKS = [
  "echo x | sed ':a;e touch {{M}}'",
  "echo x | sed ':a;w {{VICTIM}}'",
  "echo x | sed ':a;r {{SECRET}}'",
  "echo x | sed ': a b;e touch {{M}}'",
  "echo x | sed 's/x/touch {{M}}/e'",
  "echo x | sed 's/x/y/w {{VICTIM}}'",
  "echo x | sed 'p;e touch {{M}}'",
  "echo x | sed -e p -e 'e touch {{M}}'",
  "echo x | sed '{p};e touch {{M}}'",
  "echo x | sed '1e touch {{M}}'",
  "printf 'a\\nb\\n' | sed '$!e touch {{M}}'",
  "echo x | sed 'W {{VICTIM}}'",
  "echo x | sed 'R {{SECRET}}'",
  "echo x | sed 's/[/]/x/;e touch {{M}}'",
]

const AWK_ATTACKS = [
  `BEGIN{x=("a"~/[/]"/); print "touch {{M}}" | "sh"}`,
  `BEGIN { if (1) /[/]"/; print "touch {{M}}" | "sh" }`,
  `BEGIN{system("touch {{M}}")}`,
  `BEGIN{"touch {{M}}" | getline}`,
  `BEGIN{while ((getline l < "{{SECRET}}") > 0) print l}`,
  `BEGIN{print "new" > "{{VICTIM}}"}`,
  `BEGIN{print "touch {{M}}" | "sh"}`,
  `BEGIN{print ENVIRON["OPENAI_API_KEY"]}`,
  `BEGIN{for (k in PROCINFO) print k; system("touch {{M}}")}`,
  `BEGIN{f="system"; @f("touch {{M}}")}`,
]

const JQ_ATTACKS = [
  `echo '{}' | jq 'import "config" as $c {search: "{{HOME}}/.docker"}; $c'`,
  `echo '{}' | jq '"\\(import "config" as $c {search: "{{HOME}}/.docker"}; $c)"'`,
  `echo '{}' | jq '$ENV.OPENAI_API_KEY'`,
  `echo '{}' | jq 'env.OPENAI_API_KEY'`,
  `echo '{}' | jq '$ # hidden\nENV | .OPENAI_API_KEY'`,
  `echo '{}' | jq '$__loc__'`,
  `echo '{}' | jq 'input_filename'`,
]

describe("program texts outside the grammars do nothing without approval", () => {
  for (const command of SED_ATTACKS) test(command, async () => expectNothingHappened(await attempt(command)))
  for (const awk of ["awk", "gawk", "mawk"]) {
    for (const program of AWK_ATTACKS) {
      const command = `echo x | ${awk} '${program}'`
      test(command, async () => expectNothingHappened(await attempt(command)))
    }
  }
  for (const command of JQ_ATTACKS) test(command, async () => expectNothingHappened(await attempt(command)))
})

test("the attacks are real: approved, the same sed, awk and jq forms do what the red team saw", async () => {
  expect((await attempt(SED_ATTACKS[0]!, true)).marker).toBe(true)
  expect((await attempt(SED_ATTACKS[1]!, true)).victim).toBe(false)
  expect((await attempt(`echo x | mawk '${AWK_ATTACKS[0]}'`, true)).marker).toBe(true)
  expect((await attempt(`echo x | gawk '${AWK_ATTACKS[1]}'`, true)).marker).toBe(true)
  expect((await attempt(JQ_ATTACKS[0]!, true)).output).toContain(DOCKER_SECRET)
})

describe("troubleshooting idioms run without approval and give the right output", () => {
  const rows = "printf 'a 1 x\\nb 2 Error\\nc 3 ok\\n'"
  const cases: Array<[string, string]> = [
    [`${rows} | sed -n 's/a/A/p'`, "A 1 x"],
    [`${rows} | sed '1d;$d'`, "b 2 Error"],
    [`${rows} | sed -n '/Error/{s/Error/E/g;p}'`, "b 2 E"],
    [`${rows} | sed 2q`, "a 1 x\nb 2 Error"],
    [`echo '{"items":[{"n":1},{"n":2}]}' | jq -c '[.items[].n] | add'`, "3"],
    [
      `echo '{"items":[{"n":"a","p":"Running"},{"n":"b","p":"Pending"}]}' | jq -r '.items[] | select(.p != "Running") | .n'`,
      "b",
    ],
  ]
  for (const awk of ["awk", "gawk", "mawk"]) {
    cases.push(
      [`${rows} | ${awk} '{print $1}'`, "a\nb\nc"],
      [`${rows} | ${awk} '{s+=$2} END {print s}'`, "6"],
      [`${rows} | ${awk} 'NR>1 && $3 ~ /Error/ {print}'`, "b 2 Error"],
      [`${rows} | ${awk} '{c[$3 == "ok"]++} END {for (k in c) n++; print n}'`, "2"],
      [`printf 'u:x:1001\\nr:x:0\\n' | ${awk} -F: '$3>1000 {print $1, $3}'`, "u 1001"],
    )
  }
  for (const [command, expected] of cases) {
    test(command, async () => {
      const result = await sandbox.run(command)
      expect(result.status).toBe(ToolResultStatus.SUCCESS)
      expect(result.dataText().trim()).toBe(expected)
    })
  }
})

describe("the programs' own sandbox holds even where a grammar would be wrong", () => {
  const env = sandbox.env()
  for (const [program, text] of [
    ["sed", "e touch {{M}}"],
    ["gawk", 'BEGIN{system("touch {{M}}")}'],
    ["awk", 'BEGIN{print "x" > "{{M}}"}'],
  ] as const) {
    test(`${program} ${text}`, () => {
      const paths = sandbox.fresh()
      const argv = [program, fillAll(text, paths)]
      const [safe] = withSafeModes([argv], env)
      expect(safe).toEqual([program, "--sandbox", argv[1]!])
      Bun.spawnSync(safe!, { env, stdin: new TextEncoder().encode("x\n") })
      expect(sandbox.markerExists(paths.marker)).toBe(false)
      Bun.spawnSync(argv, { env, stdin: new TextEncoder().encode("x\n") })
      expect(sandbox.markerExists(paths.marker)).toBe(true)
    })
  }

  test("mawk has no sandbox flag and gets none", () => {
    expect(withSafeModes([["mawk", "{print}"]], env)).toEqual([["mawk", "{print}"]])
  })
})
