import { describe, expect, test } from "bun:test"
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { buildInitialAskMessages } from "../../src/agent/prompt/messages.ts"
import { ConfigError } from "../../src/errors.ts"
import { RunbookCatalog } from "../../src/runbook/catalog.ts"
import { createRunbookToolset } from "../../src/runbook/toolset.ts"
import { ToolExecutor } from "../../src/tool/executor.ts"
import { DEFAULT_TOOL_LIMITS } from "../../src/tool/tool.ts"

function folder(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "dupin-runbooks-"))
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(root, name, ".."), { recursive: true })
    writeFileSync(join(root, name), text)
  }
  return root
}

async function fetchRunbook(catalog: RunbookCatalog, id: string): Promise<string> {
  const executor = new ToolExecutor([createRunbookToolset(catalog)], { limits: DEFAULT_TOOL_LIMITS, env: {} })
  await executor.ensureReady()
  const call = {
    id: "r",
    type: "function" as const,
    function: { name: "fetch_runbook", arguments: JSON.stringify({ runbook_id: id }) },
  }
  const result = await executor.run(executor.prepare(call), new AbortController().signal)
  return `${result.status}: ${result.error ?? result.dataText()}`
}

describe("runbook catalog", () => {
  test("markdown files with front matter or a first heading make the catalog", () => {
    const root = folder({
      "crashloop.md":
        "---\ntitle: CrashLoopBackOff\ndescription: A pod keeps restarting\n---\nCheck the previous logs.",
      "db/replication.md": "# Postgres replication lag\nSteps...",
    })
    const catalog = RunbookCatalog.load([root])
    expect(catalog.entries.map((e) => [e.id, e.title, e.description])).toEqual([
      ["crashloop", "CrashLoopBackOff", "A pod keeps restarting"],
      ["db/replication", "Postgres replication lag", ""],
    ])
    expect(catalog.promptText()).toContain("- crashloop: CrashLoopBackOff — A pod keeps restarting")
  })

  test("front matter is YAML: folded and multi-line values, quotes, comments (issue 12 item 15)", () => {
    const root = folder({
      "disk.md": [
        "---",
        "title: 'Disk: it''s full' # the usual one",
        "description: >",
        "  A node's root file system",
        "  passes 90 %.",
        "tags: [disk, node]",
        "---",
        "# Another heading",
        "Steps...",
      ].join("\n"),
      "crlf.md": '---\r\ntitle: "CRLF"\r\n---\r\nbody',
      "number.md": "---\ntitle: 404\n---\nbody",
    })
    const catalog = RunbookCatalog.load([root])
    expect(catalog.entries.map((e) => [e.id, e.title, e.description])).toEqual([
      ["crlf", "CRLF", ""],
      ["disk", "Disk: it's full", "A node's root file system passes 90 %."],
      ["number", "404", ""],
    ])
  })

  test("front matter that is not YAML is a load error naming the file", () => {
    const root = folder({ "bad.md": "---\ntitle: [unclosed\n---\nbody" })
    expect(() => RunbookCatalog.load([root])).toThrow(/bad\.md: the front matter is not valid YAML/)
  })

  test("an unquoted ': ' in a front matter value is one line naming the file's line and the fix", () => {
    const root = folder({ "db.md": "---\ndescription: ok\ntitle: Incident: DB down\n---\nbody" })
    let message = ""
    try {
      RunbookCatalog.load([root])
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).toMatch(
      /db\.md: the front matter is not valid YAML: .*\(line 3\); quote a value that holds ": "/,
    )
    expect(message).not.toContain("\n")
  })

  test("a HolmesGPT catalog.json is used when present; a link outside the folder is refused", () => {
    const root = folder({
      "catalog.json": JSON.stringify({ catalog: [{ description: "Disk full on a node", link: "disk.md" }] }),
      "disk.md": "# Disk\nfree it",
      "ignored.md": "# Not in the catalog",
    })
    expect(RunbookCatalog.load([root]).entries.map((e) => e.id)).toEqual(["disk"])
    const escaping = folder({
      "catalog.json": JSON.stringify({ catalog: [{ description: "x", link: "../../etc/passwd" }] }),
    })
    expect(() => RunbookCatalog.load([escaping])).toThrow(ConfigError)
  })

  test("fetch_runbook reads catalog entries only: traversal and symlinks out are refused", async () => {
    const outside = folder({ "secret.md": "# Secret\ntop secret" })
    const root = folder({ "ok.md": "# OK\nrunbook body" })
    symlinkSync(join(outside, "secret.md"), join(root, "link.md"))
    const catalog = RunbookCatalog.load([root])
    expect(catalog.entries.map((e) => e.id)).toEqual(["ok"])
    expect(await fetchRunbook(catalog, "ok")).toBe("success: # OK\nrunbook body")
    expect(await fetchRunbook(catalog, "../../../etc/passwd")).toContain(
      'error: No runbook "../../../etc/passwd". Available runbooks: ok.',
    )
    expect(await fetchRunbook(catalog, "link")).toContain("error: No runbook")
  })

  test("the catalog reaches the user prompt through the time_runbooks section; no runbooks leaves the toolset off", async () => {
    const catalog = RunbookCatalog.load([folder({ "a.md": "# Alpha\n" })])
    const executor = new ToolExecutor([createRunbookToolset(catalog)], {
      limits: DEFAULT_TOOL_LIMITS,
      env: {},
    })
    const messages = await buildInitialAskMessages({
      initialUserPrompt: "q",
      toolExecutor: executor,
      runbooks: catalog,
    })
    expect(String(messages[1]!.content)).toContain("- a: Alpha")
    const none = createRunbookToolset(undefined)
    expect(none.enabled).toBe(false)
  })

  test("a runbook folder that does not exist is a config error naming it", () => {
    expect(() => RunbookCatalog.load(["/nonexistent/runbooks"])).toThrow(
      "runbooks: /nonexistent/runbooks is not a readable folder.",
    )
  })
})
