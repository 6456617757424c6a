import { describe, expect, test } from "bun:test"
import { ConfigError } from "../../src/errors.ts"
import { CommandTemplate, TemplateError } from "../../src/tool/template.ts"
import { parseToolsetFile } from "../../src/toolset/loader.ts"

/**
 * Finding R3: a placeholder inside text that another interpreter parses (sed, awk, jq, perl, a
 * remote shell, `compgen -W`) puts the value into a program, where quoting cannot help. Such a
 * toolset does not load, naming the toolset file, the tool, the parameter and the fix.
 */
function toolset(command: string, parameters = "{ type: string }", name = "p"): string {
  return `
toolsets:
  team/tools:
    description: d
    tools:
      - name: the_tool
        description: d
        command: ${JSON.stringify(command)}
        parameters:
          ${name}: ${parameters}
`
}

const load = (command: string, parameters?: string, name?: string) =>
  parseToolsetFile(toolset(command, parameters, name), "team.yaml")

describe("a placeholder inside another interpreter's program fails the load", () => {
  test("the three templates of the finding", () => {
    const cases = [
      { command: 'compgen -W "{{ names }}" -- "{{ prefix }}"', name: "names" },
      { command: `printf 'line one\\nerror two\\n' | sed -n "/{{ pattern }}/p"`, name: "pattern" },
      { command: `printf 'a 1\\nb 2\\n' | awk '$1 == "{{ key }}" { print $2 }'`, name: "key" },
    ]
    for (const { command, name } of cases) {
      const parameters = name === "names" ? "{ type: string }\n          prefix: { type: string }" : undefined
      expect(() => load(command, parameters, name)).toThrow(ConfigError)
      try {
        load(command, parameters, name)
      } catch (error) {
        const message = (error as Error).message
        expect(message).toContain("team.yaml")
        expect(message).toContain("the_tool")
        expect(message).toContain(`"${name}"`)
        expect(message).toMatch(/declare/)
      }
    }
  })

  test("their neighbours", () => {
    for (const command of [
      "sed 's/{{ p }}/x/' /var/log/syslog",
      "sed -e 's/a/b/' -e '/{{ p }}/d' file",
      "sed -ne '/{{ p }}/p' file",
      "sed --expression='/{{ p }}/p' file",
      "gawk '/{{ p }}/' file",
      "mawk -F: '$1 == \"{{ p }}\"' /etc/passwd",
      "awk -f {{ p }} file",
      "awk -e '{{ p }}' file",
      "jq '.items[] | select(.name == \"{{ p }}\")'",
      "jq -r .{{ p }} file",
      "perl -ne 'print if /{{ p }}/' file",
      "perl -e 'print 1' {{ p }}",
      "python3 -c 'print(\"{{ p }}\")'",
      "ssh bastion 'journalctl -u {{ p }}'",
      "ssh bastion journalctl -u {{ p }}",
      "watch kubectl get pods -n {{ p }}",
      "env -S '{{ p }}'",
      "timeout 5 sed -n '/{{ p }}/p' file",
      "xargs -I{} sed -n '/{{ p }}/p' {}",
      "find /var/log -name x -exec sed -n '/{{ p }}/p' {} +",
      "complete -W '{{ p }}' kubectl",
      "{{ p }} get pods",
      "sudo -s kubectl get pods -n {{ p }}",
      "sed {{ p }} file",
      "awk {{ p }} file",
    ])
      expect(() => load(command), command).toThrow(ConfigError)
  })

  test("a whole-program placeholder needs the matching program kind", () => {
    expect(() => load("awk {{ p }} file", "{ type: string, program: sed }")).toThrow("program: awk")
    expect(() => load("sed -n {{ p }} file", "{ type: string, program: awk }")).toThrow("program: sed")
    expect(() => load('awk "{{ p }} {print}" file', "{ type: string, program: awk }")).toThrow(ConfigError)
  })
})

describe("templates that still load", () => {
  test("data beside a program, integers, and declared whole programs", () => {
    for (const [command, parameters] of [
      ["sed -n '1,20p' {{ p }}", undefined],
      ["awk '{print $1}' {{ p }}", undefined],
      ["awk -v key={{ p }} '$1 == key { print $2 }' file", undefined],
      ["awk -F {{ p }} '{print $1}' file", undefined],
      ["jq -r --arg ns {{ p }} '.items[] | select(.ns == $ns) | .name' file", undefined],
      ["jq -r .items {{ p }}", undefined],
      ["sed -n '{{ p }},+5p' file", "{ type: integer }"],
      ["awk 'NR > {{ p }}' file", "{ type: integer }"],
      ["awk {{ p }} file", "{ type: string, program: awk }"],
      ["awk -- {{ p }} file", "{ type: string, program: awk }"],
      ["sed -n {{ p }} file", "{ type: string, program: sed }"],
      ["sed -e {{ p }} file", "{ type: string, program: sed }"],
      ["kubectl get pods -o json | jq -c {{ p }}", "{ type: string, program: jq }"],
      ["kubectl logs {{ p }} | grep -i error | awk '{print $1}'", undefined],
      ["python3 /opt/check.py", undefined],
      ["timeout 10 kubectl get pods -n {{ p }}", undefined],
      ["env LC_ALL=C kubectl get pods -n {{ p }}", undefined],
    ] as const)
      expect(() => load(command, parameters), command).not.toThrow()
  })
})

describe("a value that names a gawk special file (finding R16)", () => {
  test("is refused where the command runs awk, before anything runs", () => {
    const [definition] = load("awk '{print $1}' {{ p }}")
    const template = new CommandTemplate(definition!.tools[0]!.command)
    for (const value of ["/inet/tcp/0/127.0.0.1/8080", "/inet6/udp/0/::1/53", "/dev/fd/3", "/dev/stdin"])
      expect(() => template.render({ p: value }), value).toThrow(TemplateError)
    expect(template.render({ p: "/var/log/syslog" }).display).toBe("awk '{print $1}' /var/log/syslog")
  })
})
