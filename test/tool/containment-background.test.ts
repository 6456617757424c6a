/**
 * Containment detected in the background (what the CLI commands do at start): the host's probes
 * answer while the command builds its toolsets, and nothing runs a tool before they have. While
 * they run, the state refuses tools rather than running them uncontained; once they answer, the
 * result is the one the synchronous detection gives, and `required` on a host that cannot contain
 * still refuses every tool.
 */
import { afterEach, expect, test } from "bun:test"
import {
  configureContainment,
  configureContainmentInBackground,
  containmentInfo,
  currentContainment,
  privateSocketParent,
  resetContainment,
  settledContainment,
} from "../../src/tool/containment/index.ts"
import { runProcess } from "../../src/tool/spawn.ts"
import { buildToolEnv } from "../../src/tool/tool-env.ts"

const BWRAP = Bun.which("bwrap") !== null
const base = { env: buildToolEnv(process.env), timeoutMs: 10_000, maxOutputBytes: 100_000 }

afterEach(() => resetContainment())

test("while the probes run, the state refuses tools; a tool run waits for them and runs contained", async () => {
  const settled = configureContainmentInBackground({ mode: "auto" })
  // Read without waiting: refusing, never uncontained; the private state folder is there already.
  expect(currentContainment().info.refusal).toContain("still being detected")
  expect(privateSocketParent()).toContain("dupin-sandbox-")
  const run = await runProcess({ ...base, argv: ["sh", "-c", "echo $$"] })
  const info = await settled
  expect(run.exitCode).toBe(0)
  expect(info.refusal).toBeNull()
  expect(containmentInfo()).toBe(info)
  // With namespaces the tool is pid 1 of its own pid namespace (or near it): dupin is not its parent.
  if (BWRAP) expect(Number(run.stdout.trim())).toBeLessThan(10)
})

test("background detection finds what the synchronous one finds", async () => {
  const sync = configureContainment({ mode: "auto" })
  const background = await configureContainmentInBackground({ mode: "auto" })
  expect(background).toEqual(sync)
})

test("required on a host that cannot contain: refused once settled, and a tool run waits for that", async () => {
  const settled = configureContainmentInBackground({
    mode: "required",
    programs: { bwrap: null, unshare: null, prlimit: null },
  })
  const run = await runProcess({ ...base, argv: ["sh", "-c", "echo ran"] })
  expect(run.exitCode).toBe(126)
  expect(run.stdout).toBe("")
  expect(run.output).toContain("security.containment is required")
  expect((await settled).refusal).toContain("security.containment is required")
})

test("a configuration made while a detection runs wins; the stale result is dropped", async () => {
  const stale = configureContainmentInBackground({ mode: "auto" })
  const now = configureContainment({ mode: "off" })
  await stale
  expect(containmentInfo()).toBe(now)
  expect((await settledContainment()).info.mode).toBe("off")
})
