// biome-ignore-all lint/suspicious/noTemplateCurlyInString: templates are shell text, where ${…} is shell syntax
import { describe, expect, test } from "bun:test"
import { existsSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { runProcess } from "../../src/tool/spawn.ts"
import { CommandTemplate, TemplateError, templatePlaceholders } from "../../src/tool/template.ts"
import { buildToolEnv } from "../../src/tool/tool-env.ts"

const env = buildToolEnv(process.env)

/** Renders and runs under bash in a fresh temp dir; returns the output and whether P appeared. */
async function run(
  template: string,
  params: Record<string, unknown>,
): Promise<{ output: string; injected: boolean }> {
  const dir = mkdtempSync(join(tmpdir(), "dupin-tpl-"))
  const rendered = new CommandTemplate(template).render(params)
  const r = await runProcess({
    argv: ["bash", "-c", rendered.script],
    env: { ...env, ...rendered.env },
    cwd: dir,
    timeoutMs: 5000,
    maxOutputBytes: 100_000,
  })
  return { output: r.output, injected: existsSync(join(dir, "P")) }
}

const ATTACKS = [
  "x; touch P",
  "$(touch P)",
  "`touch P`",
  "' ; touch P ; '",
  '"; touch P; "',
  "a\ntouch P",
  "a\\",
  "*",
]

describe("values never become shell syntax", () => {
  const placements: Array<[string, string, (v: string) => string]> = [
    ["bare", "printf '%s\\n' {{ v }}", (v) => `${v}\n`],
    ["single-quoted", "printf '%s\\n' 'pre {{ v }} post'", (v) => `pre ${v} post\n`],
    ["double-quoted", "printf '%s\\n' \"pre {{ v }} post\"", (v) => `pre ${v} post\n`],
    ["$'...'", "printf '%s\\n' $'pre\\t{{ v }}'", (v) => `pre\t${v}\n`],
    ["inside $( ) in double quotes", "printf '%s\\n' \"$(printf '%s' \"{{ v }}\")\"", (v) => `${v}\n`],
    ["unquoted heredoc", "cat <<EOF\n{{ v }}\nEOF", (v) => `${v}\n`],
    ["here-string", "cat <<< {{ v }}", (v) => `${v}\n`],
  ]
  for (const [where, template, expected] of placements) {
    for (const value of ATTACKS) {
      test(`${where}: ${JSON.stringify(value)}`, async () => {
        const { output, injected } = await run(template, { v: value })
        expect(injected).toBe(false)
        expect(output).toBe(expected(value))
      })
    }
  }

  test("arrays and objects are passed as JSON data", async () => {
    const { output } = await run("printf '%s\\n' {{ v }}", { v: ["a b", "$(touch P)"] })
    expect(output).toBe('["a b","$(touch P)"]\n')
  })

  test("a comment cannot be escaped by a newline in a value", async () => {
    const { output, injected } = await run("echo hi # {{ v }}", { v: "x\ntouch P" })
    expect(injected).toBe(false)
    expect(output).toBe("hi\n")
  })
})

describe("refused values", () => {
  test("a value starting with - is refused unless allowed", () => {
    const t = new CommandTemplate("kubectl get pods -n {{ ns }}")
    expect(() => t.render({ ns: "--kubeconfig=/tmp/x" })).toThrow(/starts with "-"/)
    expect(t.render({ ns: "-x" }, { allowLeadingDash: (n) => n === "ns" }).env.DUPIN_P_ns).toBe("-x")
  })

  test("NUL is refused", () => {
    expect(() => new CommandTemplate("echo {{ v }}").render({ v: "a\0b" })).toThrow(/NUL/)
  })

  test("values that could run code in arithmetic contexts are refused there", async () => {
    const t = new CommandTemplate("echo $(( {{ n }} + 1 ))")
    expect(() => t.render({ n: "a[$(touch P)]" })).toThrow(TemplateError)
    expect((await run("echo $(( {{ n }} + 1 ))", { n: 41 })).output).toBe("42\n")
    expect(() => new CommandTemplate('[[ "{{ n }}" -gt 3 ]]').render({ n: "x[$(id)]" })).toThrow(
      TemplateError,
    )
  })
})

describe("fail closed when quoting is unclear", () => {
  for (const template of [
    "echo `echo {{ v }}`",
    "echo ${X:-{{ v }}}",
    "echo '{{ v }}",
    "case $X in a) echo {{ v }};; esac",
    "let n={{ v }}+1",
    "cat <<'EOF'\n{{ v }}\nEOF",
    "echo ${{ v }}",
    "echo \\{{ v }}",
  ]) {
    test(JSON.stringify(template), () => {
      expect(() => new CommandTemplate(template).render({ v: "x" })).toThrow(
        /Cannot tell how a placeholder is quoted/,
      )
    })
  }

  test("an escaped quote does not open a quoted context", async () => {
    expect((await run("printf '%s\\n' \\'{{ v }}\\'", { v: "a b" })).output).toBe("'a b'\n")
  })
})

describe("structure", () => {
  const t = new CommandTemplate(
    "kubectl get {{ kind }}{% if name %} {{ name }}{% endif %}" +
      "{% if namespace %} -n {{ namespace }}{% elif all %} -A{% else %} -n default{% endif %}",
  )

  test("{% if %} / elif / else pick structure from the values", () => {
    expect(t.render({ kind: "pods", name: "web", namespace: "prod" }).display).toBe(
      "kubectl get pods web -n prod",
    )
    expect(t.render({ kind: "pods", namespace: null, all: true }).display).toBe("kubectl get pods -A")
    expect(t.render({ kind: "pods" }).display).toBe("kubectl get pods -n default")
  })

  test("nested ifs, comparisons, not/and/or and default", () => {
    const n = new CommandTemplate(
      "{% if a %}A{% if b == 'x' %}X{% elif not b %}N{% endif %}{% endif %}" +
        "{% if a and c or d %}+{% endif %} {{ e | default('dflt') }}",
    )
    expect(n.render({ a: 1, b: "x" }).display).toBe("AX dflt")
    expect(n.render({ a: 1, c: true }).display).toBe("AN+ dflt")
    expect(n.render({ d: "y", e: "v" }).display).toBe("+ v")
  })

  test("a missing optional value renders to nothing in bare context", async () => {
    expect((await run("printf '[%s]' a {{ v }} b", {})).output).toBe("[a][b]")
    expect((await run("printf '[%s]' a {{ v }} b", { v: "" })).output).toBe("[a][b]")
    expect((await run("printf '[%s]' \"{{ v }}\"", { v: null })).output).toBe("[]")
  })

  test("placeholders are listed for parameter inference", () => {
    expect(templatePlaceholders("a {{ x }} {% if y %}{{ z }}{% endif %} {{ w | default(3) }}")).toEqual([
      { name: "x", optional: false },
      { name: "y", optional: true },
      { name: "z", optional: false },
      { name: "w", optional: true },
    ])
  })

  test("syntax errors", () => {
    expect(() => new CommandTemplate("{% if x %}a")).toThrow(/endif/)
    expect(() => new CommandTemplate("{{ x | upper }}")).toThrow(/unsupported filter/)
    expect(() => new CommandTemplate("{% for a in b %}{% endfor %}")).toThrow(/unsupported tag/)
    expect(() => new CommandTemplate("{{ a.b }}")).toThrow(/unsupported expression/)
  })

  test("whitespace control and jinja comments", () => {
    expect(new CommandTemplate("a {#- c -#} {%- if x -%} b {%- endif %}").render({ x: 1 }).display).toBe("ab")
  })
})

/** Renders and, unless the template refuses the values, runs it; P is the attack's marker. */
async function attempt(
  template: string,
  params: Record<string, unknown>,
): Promise<{ refused: string | undefined; injected: boolean; output: string }> {
  try {
    return { refused: undefined, ...(await run(template, params)) }
  } catch (error) {
    if (!(error instanceof TemplateError)) throw error
    return { refused: error.message, injected: false, output: "" }
  }
}

const ATTACK = "a[$(touch P)]"
const asString = { parameterType: () => "string" }
const asInteger = { parameterType: () => "integer" }

describe("placeholders bash evaluates take integers only", () => {
  // Each places {{ x }} where bash evaluates the value; the output is the template's for x = 2.
  const contexts: Array<[string, string, string]> = [
    ["for (( ))", "for ((i=0; i<{{ x }}; i++)); do printf %s $i; done", "01"],
    ["if (( ))", "if (( {{ x }} > 1 )); then echo big; fi", "big\n"],
    ["while (( ))", "while (( {{ x }} < 0 )); do :; done; echo ok", "ok\n"],
    ["(( )) assignment", "(( y = {{ x }} * 3 )); echo $y", "6\n"],
    ["$[ ]", "echo $[ {{ x }} + 1 ]", "3\n"],
    ["$(( )) quoted", 'echo "$(( {{ x }} + 1 ))"', "3\n"],
    ["$(( )) around $( )", "echo $(( $(echo {{ x }}) + 1 ))", "3\n"],
    ["declare -i", "declare -i v={{ x }}; echo $v", "2\n"],
    ["local -i", "f() { local -i v={{ x }}; echo $v; }; f", "2\n"],
    ["typeset -i, assigned later", "typeset -i v; v={{ x }}; echo $v", "2\n"],
    ["declare -n", "v2=ok; declare -n r=v{{ x }}; echo $r", "ok\n"],
    ["declare NAME=", "declare v{{ x }}=1; echo $v2", "1\n"],
    ["subscript assignment", "a[{{ x }}]=1; echo ${!a[@]}", "2\n"],
    ["array literal key", "a=([{{ x }}]=1); echo ${!a[@]}", "2\n"],
    ["unset 'a[ ]'", "a=(1 2 3); unset 'a[{{ x }}]'; echo ${a[@]}", "1 2\n"],
    ["[ -v ]", "a=(1 2 3); [ -v 'a[{{ x }}]' ] && echo set", "set\n"],
    ["test -v", 'a=(1 2 3); test -v "a[{{ x }}]" && echo set', "set\n"],
    ["[[ -v ]]", "a=(1 2 3); [[ -v a[{{ x }}] ]] && echo set", "set\n"],
    ["printf -v", "printf -v 'a[{{ x }}]' %s hi; echo ${!a[@]}", "2\n"],
    ["[[ -eq ]]", "[[ {{ x }} -eq 2 ]] && echo two", "two\n"],
    ["[[ -lt ]] quoted", '[[ "{{ x }}" -lt 3 ]] && echo small', "small\n"],
    ["read -a", "read -a a{{ x }} <<< 'p q'; echo ${a2[1]}", "q\n"],
    ["mapfile", "mapfile -t -n {{ x }} l < <(seq 5); echo ${#l[@]}", "2\n"],
    ["a variable then read by $(( ))", "y={{ x }}; echo $(( y + 1 ))", "3\n"],
    ["through two variables into (( ))", "y={{ x }}; z=$y; (( z > 1 )) && echo big", "big\n"],
    ["a variable then read by ${!y}", "v2=ok; y=v{{ x }}; echo ${!y}", "ok\n"],
    ["a for loop variable", "for n in {{ x }}; do echo $(( n * 2 )); done", "4\n"],
    ["a positional parameter", "set -- {{ x }}; echo $(( $1 + 1 ))", "3\n"],
    ["eval", 'eval "echo {{ x }}"', "2\n"],
    ["builtin eval", 'builtin eval "echo {{ x }}"', "2\n"],
    ["trap", "trap 'echo {{ x }}' EXIT", "2\n"],
    ["a variable then expanded as a prompt (@P)", "y=v{{ x }}; echo ${y@P}", "v2\n"],
    ["PS4, expanded before each trace line", "PS4={{ x }}; echo $PS4", "2\n"],
    ["the script of bash -c", 'bash -c "echo {{ x }}"', "2\n"],
    ["after an alias (it may stand for eval)", "shopt -s expand_aliases; alias e=echo\ne {{ x }}", "2\n"],
  ]
  for (const [where, template, expected] of contexts) {
    describe(where, () => {
      test("a string parameter is refused at load, naming it", () => {
        expect(() => new CommandTemplate(template, asString)).toThrow(
          /Parameter "x" is used .*declare it `type: integer` \(it is `string`\)/,
        )
      })

      test("an integer parameter loads and runs", async () => {
        new CommandTemplate(template, asInteger)
        expect(await attempt(template, { x: 2 })).toEqual({
          refused: undefined,
          injected: false,
          output: expected,
        })
      })

      test("a value that is not an integer is refused before anything runs", async () => {
        const { refused, injected } = await attempt(template, { x: ATTACK })
        expect(injected).toBe(false)
        expect(refused).toMatch(/The value of x must be an integer/)
        for (const x of ["x", "08", "0x10", "1e3", "1.5", " 2", "2 ", "3#7", "9".repeat(19), true]) {
          expect(() => new CommandTemplate(template).render({ x })).toThrow(/must be an integer/)
        }
      })
    })
  }

  test("only the {% if %} branch that evaluates counts, and it is checked at load", () => {
    const template = "echo {% if twice %}$(( {{ x }} * 2 )){% else %}{{ x }}{% endif %}"
    expect(() => new CommandTemplate(template, asString)).toThrow(/Parameter "x" is used inside \$\(\( \)\)/)
    const t = new CommandTemplate(template, asInteger)
    expect(t.render({ x: "a b" }).env.DUPIN_P_x).toBe("a b")
    expect(() => t.render({ x: "a b", twice: true })).toThrow(/must be an integer/)
    expect(t.render({ x: "-4", twice: true }, { allowLeadingDash: () => true }).display).toBe(
      "echo $(( -4 * 2 ))",
    )
  })

  test("an undeclared parameter is named as such; a default there must be an integer", () => {
    expect(() => new CommandTemplate("echo $(( {{ x }} ))", { parameterType: () => undefined })).toThrow(
      /declare it `type: integer` \(it is undeclared\)/,
    )
    expect(() => new CommandTemplate("echo $(( {{ x | default('a') }} ))")).toThrow(
      /default of x .* not an integer/,
    )
    expect(new CommandTemplate("echo $(( {{ x | default(7) }} ))").render({}).display).toBe("echo $(( 7 ))")
  })

  test("code and names reached some other way are refused as strings too", () => {
    for (const [template, why] of [
      ["$CMD {{ x }}", /a command whose name is not literal/],
      ["'eval' {{ x }}", /a command whose name is not literal/],
      [". {{ x }}", /an argument of \./],
      ["timeout 5 /bin/sh -ec 'echo {{ x }}'", /in the script of a shell's -c/],
      ["y={{ x }}; : ${z:=$y}; (( z ))", /assigned to y, which bash evaluates in a value assigned to z/],
      ["echo {{ x }} > f; echo $(( $(cat f) ))", /evaluates a command's output inside \$\(\( \)\)/],
      ["n=$(wc -l < f); [[ $n -gt 1 ]] && echo {{ x }}", /evaluates a command's output .*\[\[ -gt \]\]/],
      ['echo "{{ x }}" | bash', /runs bash on a script made from data/],
      ["bash <<< {{ x }}", /runs bash on a script made from data/],
      ["xargs -I{} sh -c 'echo {}' <<< {{ x }}", /runs sh on a script made from data/],
      [
        "BASH_ENV={{ x }} bash -c 'echo ok'",
        /assigned to BASH_ENV, which bash evaluates as a prompt or a startup file/,
      ],
      ["[ {{ op }} {{ x }} ]", /after a value in \[ \(it may be -v\)/],
    ] as const) {
      expect(() => new CommandTemplate(template, asString)).toThrow(why)
    }
  })

  describe("what the analysis cannot follow is refused at load, whatever the type", () => {
    for (const [template, why] of [
      ["read n <<< {{ x }}; echo $(( n ))", /n is set by read and evaluated inside \$\(\( \)\)/],
      ["while read -r n; do (( n > {{ x }} )); done < /dev/null", /n is set by read/],
      ["(( DUPIN_P_x > {{ x }} ))", /DUPIN_P_x is read directly/],
      ["if (( {{ x }} > 1 )); then echo big", /not valid bash/],
      ["let n={{ x }}+1", /let statement/],
      ["echo ${v:{{ x }}}", /inside a parameter expansion/],
      ['a=(1 2); echo "${a[{{ x }}]}"', /inside a parameter expansion/],
    ] as const) {
      test(template, () => {
        const error = (() => {
          try {
            new CommandTemplate(template, asInteger)
          } catch (e) {
            return e
          }
        })()
        expect(error).toBeInstanceOf(TemplateError)
        expect((error as Error).message).toMatch(why)
      })
    }
  })

  describe("neighbours where bash only reads a number stay data", () => {
    for (const template of [
      "[ {{ x }} -eq 3 ] || echo no",
      "test {{ x }} -lt 3 || echo no",
      "printf '%d\\n' {{ x }} || echo no",
      "kill -0 {{ x }} 2>/dev/null || echo no",
      "shift {{ x }} || echo no",
      "ulimit -n {{ x }} || echo no",
      "caller {{ x }} || echo no",
      "(exit {{ x }}) || echo no",
      // `[ ]` compares a command's output without evaluating it (`[[ -gt ]]` would be refused).
      'n=$(echo {{ x }} | wc -c); [ "$n" -gt 1 ] && echo long',
    ]) {
      test(template, async () => {
        new CommandTemplate(template, asString)
        const { refused, injected } = await attempt(template, { x: ATTACK })
        expect(refused).toBeUndefined()
        expect(injected).toBe(false)
      })
    }
  })
})
