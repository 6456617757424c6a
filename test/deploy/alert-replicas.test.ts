/**
 * Three `dupin serve` processes sharing one PostgreSQL store (a real server), as the Kubernetes
 * alerts overlay runs them: every alert is posted to all three replicas (as an Alertmanager cluster
 * does) and each is investigated exactly once; `kill -9` of the replica running an investigation
 * hands it to another one when its lease expires (30 s), and nothing accepted is lost.
 */
import { afterAll, beforeAll, expect, test } from "bun:test"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { alertmanagerBody } from "../alerts/support.ts"
import { type ServerProcess, startServerProcess, waitForOk } from "../bench/support/processes.ts"
import {
  type FakeProvider,
  type FakeStep,
  type RecordedRequest,
  startFakeProvider,
} from "../support/fake-provider.ts"
import { postgresForThisFile } from "../support/postgres.ts"
import { waitFor } from "../support/wait.ts"

const TOKEN = "alert-replicas-token"
const pg = postgresForThisFile()
let dir: string
const replicas: Array<{ name: string; server: ServerProcess; fake: FakeProvider }> = []
/** Which replica's model was asked about each fingerprint, in order. */
const asked = new Map<string, string[]>()
let victimAsked: ((name: string) => void) | undefined

function model(name: string) {
  return (request: RecordedRequest): FakeStep => {
    const messages = (request.body?.messages ?? []) as Array<{ role: string; content: string }>
    const fingerprint = /Fingerprint: (\S+)/.exec(messages.find((m) => m.role === "user")?.content ?? "")?.[1]
    if (!fingerprint) return { content: "nothing to do" }
    const before = asked.get(fingerprint) ?? []
    asked.set(fingerprint, [...before, name])
    // The first replica asked about the victim never gets an answer: it is killed meanwhile.
    if (fingerprint === "victim" && before.length === 0) {
      victimAsked?.(name)
      return { hang: true }
    }
    return { content: `investigated ${fingerprint} on ${name}` }
  }
}

beforeAll(async () => {
  const url = await pg.database("replicas")
  dir = mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), "dupin-alert-replicas-"))
  for (const name of ["r1", "r2", "r3"]) {
    const fake = await startFakeProvider()
    fake.script(...Array.from({ length: 200 }, () => model(name)))
    const configPath = join(dir, `${name}.yaml`)
    writeFileSync(
      configPath,
      `model: openai/gpt-4o
api_key: test-key
api_base: ${fake.url}
server:
  auth_token: ${TOKEN}
alerts:
  enabled: true
  max_concurrent: 2
store:
  url: ${url}
`,
    )
    const server = await startServerProcess([
      "bun",
      "src/main.ts",
      "serve",
      "--config",
      configPath,
      "--port",
      "0",
    ])
    await waitForOk(`${server.url}/readyz`)
    replicas.push({ name, server, fake })
  }
}, 120_000)

afterAll(async () => {
  for (const r of replicas) {
    await r.server.stop("SIGKILL")
    await r.fake.stop()
  }
  if (dir) rmSync(dir, { recursive: true, force: true })
})

const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" }
type Listing = { investigations: Array<{ id: string; fingerprint: string; status: string }> }

/** Posts every alert of `fingerprints` to every replica at once (as an Alertmanager cluster does). */
async function postToAll(fingerprints: string[]): Promise<void> {
  const body = alertmanagerBody(fingerprints.map((fingerprint) => ({ fingerprint })))
  const answers = await Promise.all(
    replicas.map((r) =>
      fetch(`${r.server.url}/api/alerts/alertmanager`, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
      }),
    ),
  )
  expect(answers.map((a) => a.status)).toEqual([202, 202, 202])
}

/** The done investigations of `fingerprints`, once all of them are done (asked of replica `via`). */
async function allDone(via: ServerProcess, fingerprints: string[], what: string) {
  return waitFor(
    async () => {
      const res = await fetch(`${via.url}/api/investigations?status=done&limit=100`, { headers })
      const list = ((await res.json()) as Listing).investigations.filter((i) =>
        fingerprints.includes(i.fingerprint),
      )
      return list.length === fingerprints.length ? list : undefined
    },
    { timeoutMs: 90_000, intervalMs: 250, what },
  )
}

test("alerts posted to all three replicas are each investigated exactly once, by whichever replica claimed it", async () => {
  const fingerprints = Array.from({ length: 30 }, (_, i) => `once${i}`)
  await postToAll(fingerprints)
  const done = await allDone(replicas[0]?.server as ServerProcess, fingerprints, "every investigation done")
  expect(done.map((i) => i.fingerprint).sort()).toEqual([...fingerprints].sort())
  for (const fingerprint of fingerprints) expect(asked.get(fingerprint), fingerprint).toHaveLength(1)
  // The queue is shared: more than one replica ran some.
  const ranOn = new Set(fingerprints.flatMap((f) => asked.get(f) ?? []))
  console.log(
    `exactly once: ${fingerprints.length} alerts x 3 replicas posted, run on ${[...ranOn].sort().join(", ")}`,
  )
  expect(ranOn.size).toBeGreaterThan(1)
}, 120_000)

test("kill -9 of the replica running an investigation hands it to another after the lease; nothing is lost", async () => {
  const killed = new Promise<string>((resolve) => {
    victimAsked = resolve
  })
  const fingerprints = ["victim", ...Array.from({ length: 20 }, (_, i) => `fp${i}`)]
  await postToAll(fingerprints)

  const running = await killed
  const victim = replicas.find((r) => r.name === running)
  victim?.server.proc.kill("SIGKILL")
  await victim?.server.proc.exited
  const survivor = replicas.find((r) => r.name !== running)
  if (!survivor) throw new Error("no replica left")

  const done = await allDone(
    survivor.server,
    fingerprints,
    "every investigation done, the orphaned one after its lease",
  )
  expect(done.map((i) => i.fingerprint).sort()).toEqual([...fingerprints].sort())
  // Exactly once by the replicas that lived. The killed replica may have finished some before it
  // died (those ran once, there); whatever it was still running (the victim, and maybe another it
  // had claimed) ran again once elsewhere, after its lease.
  for (const fingerprint of fingerprints) {
    const by = asked.get(fingerprint) ?? []
    expect(by.length, fingerprint).toBeGreaterThanOrEqual(1)
    expect(by.length, fingerprint).toBeLessThanOrEqual(2)
    expect(by.filter((name) => name !== running).length, fingerprint).toBeLessThanOrEqual(1)
    if (by.length === 2) expect(by[0], fingerprint).toBe(running)
  }
  // Each record's analysis comes from the last replica asked: the one whose answer was stored.
  for (const investigation of done) {
    const by = asked.get(investigation.fingerprint) ?? []
    const stored = (await (
      await fetch(`${survivor.server.url}/api/investigations/${investigation.id}`, { headers })
    ).json()) as { analysis: string }
    if (investigation.fingerprint !== "victim")
      expect(stored.analysis, investigation.fingerprint).toBe(
        `investigated ${investigation.fingerprint} on ${by.at(-1)}`,
      )
  }
  const victimRuns = asked.get("victim") ?? []
  expect(victimRuns).toHaveLength(2)
  expect(victimRuns[1]).not.toBe(running)
  const record = (await (
    await fetch(
      `${survivor.server.url}/api/investigations/${done.find((i) => i.fingerprint === "victim")?.id}`,
      {
        headers,
      },
    )
  ).json()) as { analysis: string; attempts: number }
  expect(record.analysis).toBe(`investigated victim on ${victimRuns[1]}`)
  expect(record.attempts).toBe(2)
}, 150_000)
