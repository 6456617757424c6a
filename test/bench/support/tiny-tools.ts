/**
 * The conversation server-load.ts and first-conversation.ts measure: the fake provider calls
 * `t_true` and `t_echo` (server-config.ts's one-line YAML tools) for `steps` steps, then answers.
 * Floors run the same commands the way dupin's YAML tools do, minus dupin.
 */
import type { ProviderScript } from "./provider-process.ts"

export const TINY_CALLS: ProviderScript["calls"] = [
  { name: "t_true", arguments: { n: "{{step}}" } },
  { name: "t_echo", arguments: { text: "step {{step}}" } },
]

/** Runs one tiny tool call as `bash -c` (detached, piped, an explicit environment) to its end. */
export async function runTinyTool(name: string, argumentsJson: string): Promise<string> {
  const args = JSON.parse(argumentsJson) as Record<string, string>
  const script = name === "t_true" ? `true ${args.n}` : `echo ${args.text}`
  const proc = Bun.spawn(["bash", "-c", script], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    stdout: "pipe",
    stderr: "pipe",
    detached: true,
  })
  const [out] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ])
  return out
}
