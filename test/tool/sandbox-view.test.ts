/**
 * What a tool sees (issue 18 class 3, issue 19.2). Approved calls write where dupin's user may, but
 * still read none of dupin's secrets (R5's long tail included) and cannot write into /etc/dupin or
 * a hidden path; every call gets a private HOME and no view of dupin's state folder, so shell
 * histories (R5) and other conversations' spilled outputs (R7) are out of reach.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { OutputStore } from "../../src/context/output-store.ts"
import { configureContainment, resetContainment } from "../../src/tool/containment/index.ts"
import { removeStaleStateDirs } from "../../src/tool/containment/state-dir.ts"
import { runProcess } from "../../src/tool/spawn.ts"

const BWRAP = Bun.which("bwrap") !== null && process.platform === "linux"
const ROOT = process.getuid?.() === 0
const SECRET = "sk-view-secret-0042"
const CONFIG_SECRET = "config-view-secret-7"
const ENV_SECRET = "env-view-secret-8"
const HISTORY_SECRET = "sk-proj-HISTORYleakKEY0123456789"

const dir = mkdtempSync(join(tmpdir(), "dupin-view-"))
const home = join(dir, "home")
const configFile = join(dir, "config.yaml")
const envFile = join(dir, "dupin.env")
const hiddenDir = join(dir, "hidden")
let createdEtc = false

const run = (script: string, view: "read-only" | "writable" = "read-only") =>
  runProcess({
    argv: ["bash", "-c", script],
    env: { PATH: "/usr/bin:/bin", HOME: home },
    timeoutMs: 30_000,
    maxOutputBytes: 100_000,
    view,
  })

describe.skipIf(!BWRAP)("the sandbox view", () => {
  beforeAll(() => {
    mkdirSync(join(home, ".kube"), { recursive: true })
    mkdirSync(hiddenDir)
    writeFileSync(join(home, ".bash_history"), `export OPENAI_API_KEY=${HISTORY_SECRET}\n`)
    writeFileSync(join(home, ".kube", "config"), "kubeconfig-for-tools\n")
    writeFileSync(configFile, `api_key: ${CONFIG_SECRET}\n`)
    writeFileSync(envFile, `OPENAI_API_KEY=${ENV_SECRET}\n`)
    if (ROOT && !existsSync("/etc/dupin")) {
      mkdirSync("/etc/dupin", { mode: 0o700 })
      createdEtc = true
    }
    process.env.DUPIN_VIEW_TEST_SECRET = SECRET
    const info = configureContainment({ mode: "auto", secretPaths: [configFile, envFile, hiddenDir], home })
    expect(info.mechanism).toBe("bwrap")
  })
  afterAll(() => {
    resetContainment()
    delete process.env.DUPIN_VIEW_TEST_SECRET
    rmSync(dir, { recursive: true, force: true })
    if (createdEtc) rmSync("/etc/dupin", { recursive: true, force: true })
  })

  test("R5: HOME is private; a shell history is not there, kubectl's ~/.kube is (read-only)", async () => {
    const r = await run(
      `cat ~/.bash_history; echo; cat ~/.kube/config; ls -A ~; echo x > ~/.kube/new || echo ro`,
    )
    expect(r.output).not.toContain(HISTORY_SECRET)
    expect(r.output).toContain("kubeconfig-for-tools")
    expect(r.output).toContain("ro")
  })

  test("a command started in a folder of the private HOME runs there, seeing nothing of it", async () => {
    const cwd = join(home, "work", "sub")
    mkdirSync(cwd, { recursive: true })
    writeFileSync(join(cwd, "private.txt"), "host-only\n")
    const r = await runProcess({
      argv: ["sh", "-c", "pwd; ls -A"],
      cwd,
      env: { PATH: "/usr/bin:/bin", HOME: home },
      timeoutMs: 30_000,
      maxOutputBytes: 10_000,
    })
    expect(r.exitCode).toBe(0)
    expect(r.output).toBe(`${cwd}\n`)
  })

  test("an approved hostile call writes on the host but reads no secret and cannot write masked places", async () => {
    const target = join(dir, "approved-wrote")
    const script = [
      `touch ${target}`,
      `echo "environ=$(base64 -w0 /proc/$PPID/environ 2>/dev/null)"`,
      `cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -a DUPIN_VIEW_TEST_SECRET`,
      `echo "config=$(base64 -w0 ${configFile})"`,
      `echo "env=$(base64 -w0 ${envFile})"`,
      `echo "history=$(base64 -w0 ${join(home, ".bash_history")} 2>/dev/null)"`,
      `touch /etc/dupin/planted 2>/dev/null && echo etc-written`,
      `touch ${hiddenDir}/planted 2>/dev/null && echo hidden-written`,
      `echo done`,
    ].join("\n")
    const r = await run(script, "writable")
    expect(r.output).toContain("done")
    expect(existsSync(target)).toBe(true)
    const decoded = r.output
      .split("\n")
      .map((l) => (l.includes("=") ? Buffer.from(l.split("=")[1] ?? "", "base64").toString() : l))
      .join("\n")
    for (const secret of [SECRET, CONFIG_SECRET, ENV_SECRET, HISTORY_SECRET])
      expect(decoded).not.toContain(secret)
    expect(r.output).not.toContain("etc-written")
    expect(r.output).not.toContain("hidden-written")
    expect(existsSync(join(hiddenDir, "planted"))).toBe(false)
    if (existsSync("/etc/dupin")) expect(existsSync("/etc/dupin/planted")).toBe(false)
  })

  test("R7: another conversation's spilled output is not visible to a tool", async () => {
    const store = new OutputStore(0)
    store.put("call-a", "tool", "tenant-A-private-row customer=alice@example.com")
    const spill = store.spillDir
    expect(spill).toBeDefined()
    const file = join(spill!, readdirSync(spill!)[0]!)
    const r = await run(
      `cat ${file} 2>&1; ls -A ${dirname(spill!)} 2>&1; find ${tmpdir()} -path '*dupin-output-*' 2>/dev/null; echo end`,
    )
    expect(r.output).not.toContain("tenant-A-private-row")
    expect(r.output).toContain("end")
    await store.dispose()
  })
})

describe("R17: temp folders of a killed dupin are removed on the next start", () => {
  test("only folders whose owner pid is dead go", () => {
    const parent = mkdtempSync(join(tmpdir(), "dupin-stale-"))
    // A pid far above pid_max is never alive.
    const dead = 4_999_999
    for (const name of [`dupin-sandbox-${dead}-abc123`, `dupin-http-${dead}-def456`])
      mkdirSync(join(parent, name))
    const live = [`dupin-sandbox-${process.pid}-ghi789`, `dupin-http-${process.pid}-jkl012`, "unrelated-dir"]
    for (const name of live) mkdirSync(join(parent, name))
    const removed = removeStaleStateDirs(parent)
    expect(removed.length).toBe(2)
    expect(readdirSync(parent).sort()).toEqual([...live].sort())
    rmSync(parent, { recursive: true, force: true })
  })
})
