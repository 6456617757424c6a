import { describe, expect, test } from "bun:test"
import { existsSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { buildToolEnv, runProcess } from "../../src/tool/spawn.ts"
import { CommandTemplate, TemplateError, templatePlaceholders } from "../../src/tool/template.ts"

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
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell syntax under test
    "echo ${X:-{{ v }}}",
    "echo '{{ v }}",
    "case $X in a) echo {{ v }};; esac",
    "let n={{ v }}+1",
    "cat <<'EOF'\n{{ v }}\nEOF",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell syntax under test
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
