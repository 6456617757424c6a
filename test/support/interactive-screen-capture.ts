/**
 * Records the screen of a scripted interactive `dupin ask` session for docs/terminal-session.txt:
 * the real CLI on a pseudo-terminal (line editor, banner, Tab completion, /show through the pager,
 * a follow-up) against the fake provider and a small deterministic toolset, played into a
 * headless terminal; the final screen is printed (text only).
 *
 *   bun test/support/interactive-screen-capture.ts > docs/terminal-session.txt
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { startFakeProvider } from "./fake-provider.ts"
import { screenOf } from "./screen.ts"

const MAIN = join(import.meta.dir, "../../src/main.ts")
const dir = mkdtempSync(join(tmpdir(), "dupin-capture-"))
const toolset = join(dir, "host.yaml")
writeFileSync(
  toolset,
  `toolsets:
  demo/host:
    description: disk tools, faked for the capture
    tools:
      - name: disk_usage
        description: Disk usage per mount
        command: "sleep 0.3; printf 'Filesystem  Size  Used Avail Use%% Mounted on\\\\n/dev/sda1    40G   37G  3.0G  93%% /\\\\n/dev/sdb1   200G   61G  139G  31%% /data\\\\n'"
      - name: largest_dirs
        description: The largest directories under a path
        command: "sleep 0.5; printf '21G\\\\t{{ path }}/log/journal\\\\n6.1G\\\\t{{ path }}/lib/docker\\\\n1.2G\\\\t{{ path }}/cache/apt\\\\n'"
        parameters:
          path: { type: string }
`,
)

const fake = await startFakeProvider()
fake.script(
  {
    toolCalls: [
      { name: "disk_usage", arguments: {} },
      { name: "largest_dirs", arguments: { path: "/var" } },
    ],
    delayMs: 400,
  },
  {
    content: [
      "## The journal is filling `/`",
      "",
      "`/` is at **93%** (3.0 GiB free). Most of it is `/var/log/journal`: **21 GiB** of logs.",
      "",
      "| path | size |",
      "|---|---|",
      "| /var/log/journal | 21G |",
      "| /var/lib/docker | 6.1G |",
      "",
      "Cap the journal, then vacuum it: `journalctl --vacuum-size=2G`.",
    ].join("\n"),
    chunkDelayMs: 20,
  },
  {
    content:
      "Yes: `journalctl --vacuum-size=2G` only removes archived journal files, never the active one. Set `SystemMaxUse=2G` in `/etc/systemd/journald.conf` so it stays there.",
    chunkDelayMs: 20,
  },
)

let output = ""
const cols = 100
const proc = Bun.spawn([process.execPath, MAIN, "ask", "--toolset-file", toolset], {
  env: {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: dir,
    XDG_STATE_HOME: dir,
    TERM: "xterm-256color",
    PAGER: "cat",
    OPENAI_API_KEY: "demo",
    OPENAI_BASE_URL: fake.url,
    MODEL: "openai/gpt-4.1",
  },
  cwd: dir,
  terminal: {
    cols,
    rows: 60,
    data: (_t, data) => {
      output += new TextDecoder().decode(data).replaceAll("\r\n", "\n")
    },
  },
})

/** A new prompt: the editor switches bracketed paste on, then draws `> `. */
const PROMPT = "\x1b[?2004h\r\x1b[J> "
let seen = 0
async function prompt(): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const at = output.indexOf(PROMPT, seen)
    if (at !== -1) {
      seen = at + PROMPT.length
      return
    }
    await Bun.sleep(50)
  }
  throw new Error(`no prompt; output:\n${output}`)
}
/** Types like a person: one key at a time. */
async function type(keys: string): Promise<void> {
  for (const key of keys) {
    proc.terminal?.write(key)
    await Bun.sleep(10)
  }
}

await prompt()
await type("why is / filling up?")
// Left over the "?", then the missing words: the editor inserts at the cursor.
await type("\x1b[D on this host\r")
await prompt()
await type("/sh\t2\r")
await prompt()
await type("is vacuuming safe while it runs?\r")
await prompt()
await type("exit\r")
await proc.exited
proc.terminal?.close()
await fake.stop()
rmSync(dir, { recursive: true, force: true })
process.stdout.write(`$ dupin ask --toolset-file host.yaml\n${await screenOf(output, cols, 60)}\n`)
