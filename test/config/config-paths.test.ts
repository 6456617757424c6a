import { describe, expect, test } from "bun:test"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Config } from "../../src/core/config.ts"
import { createRuntime } from "../../src/runtime/runtime.ts"

const TOOLSET = `toolsets:
  team/tools:
    description: team tools
    tools:
      - name: team_hello
        description: says hello
        command: echo hello
`

// Issue 21 item 1: the starter config's own example (`~/.config/dupin/toolsets/team.yaml`) failed
// with ENOENT, and relative paths were read from the working directory instead of the file's folder.
describe("paths in a config file", () => {
  test("~ is the home folder and relative paths are read from the config file's folder", () => {
    const home = mkdtempSync(join(tmpdir(), "dupin-home-"))
    mkdirSync(join(home, "toolsets"))
    writeFileSync(join(home, "toolsets", "team.yaml"), TOOLSET)
    const dir = mkdtempSync(join(tmpdir(), "dupin-etc-"))
    mkdirSync(join(dir, "runbooks"))
    writeFileSync(join(dir, "local.yaml"), TOOLSET.replaceAll("team", "local"))
    const path = join(dir, "config.yaml")
    writeFileSync(
      path,
      "custom_toolsets: [~/toolsets/team.yaml, local.yaml]\nrunbooks: [./runbooks]\n" +
        "security:\n  hidden_paths: [secrets.env, ~/.kube]\n",
    )
    const config = Config.loadFromFile(path, { env: { HOME: home } })
    expect(config.customToolsets).toEqual([join(home, "toolsets", "team.yaml"), join(dir, "local.yaml")])
    expect(config.runbooks).toEqual([join(dir, "runbooks")])
    // Hidden from tools: the config file, the custom toolset files it names (finding R17), then
    // its own hidden_paths, all resolved the same way.
    expect(config.security.hiddenPaths).toEqual([
      path,
      join(home, "toolsets", "team.yaml"),
      join(dir, "local.yaml"),
      join(dir, "secrets.env"),
      join(home, ".kube"),
    ])
    const names = createRuntime(config).executor.toolsets.map((t) => t.name)
    expect(names).toContain("team/tools")
    expect(names).toContain("local/tools")
  })

  test("store.path: ~ is the home folder, a relative path is read from the config file's folder", () => {
    const dir = mkdtempSync(join(tmpdir(), "dupin-etc-"))
    const at = (value: string) => {
      const path = join(dir, "config.yaml")
      writeFileSync(path, `store:\n  path: ${value}\n`)
      return Config.loadFromFile(path, { env: { HOME: "/home/op" } }).store
    }
    expect(at("~/state/dupin.db")).toEqual({ engine: "sqlite", path: "/home/op/state/dupin.db" })
    expect(at("data/dupin.db")).toEqual({ engine: "sqlite", path: join(dir, "data", "dupin.db") })
    expect(at("/var/lib/dupin/dupin.db")).toEqual({ engine: "sqlite", path: "/var/lib/dupin/dupin.db" })
  })

  test("library options expand ~ and keep other relative paths as given", () => {
    const config = new Config({ customToolsets: ["~/a.yaml", "b.yaml"], env: { HOME: "/home/op" } })
    expect(config.customToolsets).toEqual(["/home/op/a.yaml", "b.yaml"])
  })
})
