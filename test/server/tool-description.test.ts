/**
 * A call's `description` (tool_calls[], tool_calling_result events, pending approvals) is one
 * line. A YAML tool whose command is a multi-line script used to be described by its whole raw
 * script; it is now described by the tool's description and the call's values. A one-line
 * command is still shown with the values written in.
 */
import { afterEach, expect, test } from "bun:test"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { eventOf, type Harness, startHarness } from "./harness.ts"

let h: Harness | undefined
afterEach(async () => {
  await h?.stop()
  h = undefined
})

const TOOLSET = `toolsets:
  test/scripts:
    description: Multi-line and one-line tools
    tools:
      - name: disk_report
        description: |
          Disk usage of a folder
          (largest entries first)
        command: |
          set -e
          du -sh {{ folder }} 2>/dev/null || true
          echo done
      - name: restart_unit
        description: Restart a systemd unit
        requires_approval: true
        command: |
          echo restarting {{ unit }}
          echo restarted {{ unit }}
      - name: echo_line
        description: Print a line
        command: "echo {{ text }}"
`

async function start(): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), "dupin-desc-"))
  const file = join(dir, "scripts.yaml")
  writeFileSync(file, TOOLSET)
  return startHarness({ init: { customToolsets: [file] } })
}

const calls = [
  { id: "c1", name: "disk_report", arguments: { folder: "/tmp" } },
  { id: "c2", name: "echo_line", arguments: { text: "hello" } },
]

test("tool_calls[].description: a multi-line script is described by the tool's description and values", async () => {
  h = await start()
  h.fake.script({ content: null, toolCalls: calls }, { content: "Done." })
  const res = await h.post({ ask: "How full is /tmp?" })
  expect(res.status).toBe(200)
  const body = (await res.json()) as { tool_calls: Array<{ tool_name: string; description: string }> }
  const described = Object.fromEntries(body.tool_calls.map((c) => [c.tool_name, c.description]))
  expect(described.disk_report).toBe("Disk usage of a folder … (folder=/tmp)")
  expect(described.echo_line).toBe("echo hello")
})

test("tool_calling_result events and pending approvals carry one-line descriptions", async () => {
  h = await start()
  h.fake.script(
    {
      content: null,
      toolCalls: [...calls, { id: "c3", name: "restart_unit", arguments: { unit: "nginx\nmalicious" } }],
    },
    { content: "Done." },
  )
  const { events } = await h.stream({ ask: "Check and restart", enable_tool_approval: true })
  const results = events.filter((e) => e.event === "tool_calling_result").map((e) => e.data)
  expect(results.length).toBeGreaterThan(0)
  for (const result of results) expect(result.description).not.toMatch(/[\r\n]/)
  const disk = results.find((r) => r.name === "disk_report")
  expect(disk?.description).toBe("Disk usage of a folder … (folder=/tmp)")

  const paused = eventOf(events, "approval_required")
  const pending = paused.pending_approvals[0]
  // A value with a line break is shown escaped, never as a second line.
  expect(pending?.description).toBe('Restart a systemd unit (unit="nginx\\nmalicious")')
})

test("any tool's multi-line one-liner is cut to its first line (run_bash_command with a two-line command)", async () => {
  h = await startHarness({ init: { toolsets: { bash: { enabled: true } } } })
  h.fake.script(
    {
      content: null,
      toolCalls: [{ id: "b1", name: "run_bash_command", arguments: { command: "echo one\necho two" } }],
    },
    { content: "Done." },
  )
  const res = await h.post({ ask: "Run it" })
  expect(res.status).toBe(200)
  const body = (await res.json()) as { tool_calls: Array<{ tool_name: string; description: string }> }
  expect(body.tool_calls.map((c) => c.description)).toEqual(["echo one …"])
})
