/** A config file and YAML toolset for running `dupin serve` against a fake provider. */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** Tiny subprocess tools: `t_true` and `t_echo` cost a fork+exec each; `nap` sleeps in its own group. */
export const BENCH_TOOLSET = `toolsets:
  bench/tiny:
    description: Tiny subprocess tools for load tests
    tools:
      - name: t_true
        description: Runs true
        command: "true {{ n }}"
        parameters:
          n: { type: string }
      - name: t_echo
        description: Echoes its text
        command: "echo {{ text }}"
        parameters:
          text: { type: string }
      - name: nap
        description: Sleeps for some seconds
        command: "sleep {{ seconds }}"
        parameters:
          seconds: { type: string }
`

export type ServeFiles = { dir: string; configPath: string; toolsetPath: string }

export function writeServeConfig(providerUrl: string, extra = ""): ServeFiles {
  const dir = mkdtempSync(join(tmpdir(), "dupin-bench-"))
  const toolsetPath = join(dir, "toolsets.yaml")
  const configPath = join(dir, "config.yaml")
  writeFileSync(toolsetPath, BENCH_TOOLSET)
  writeFileSync(
    configPath,
    `model: openai/gpt-4o
api_key: bench-key
api_base: ${providerUrl}
custom_toolsets: [${toolsetPath}]
${extra}`,
  )
  return { dir, configPath, toolsetPath }
}

/** `bun src/main.ts serve` on a free loopback port. */
export function serveArgv(configPath: string): string[] {
  return ["bun", "src/main.ts", "serve", "--config", configPath, "--port", "0"]
}
