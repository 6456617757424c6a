/**
 * Three `dupin serve` replicas behind a real HAProxy (Debian's package) on loopback, round robin,
 * health-checked on `/readyz` every 200 ms (fall 2, 5 s check timeout), as a Kubernetes Service or an ingress would.
 * Chat needs no shared state: the client holds the history and approvals are signed with the
 * secret every replica shares, so a conversation paused on one replica resumes on any other, and
 * a rolling restart (lame duck first: CONTRACT §5 `server.drain_delay`) loses nothing.
 */
import { afterAll, beforeAll, expect, test } from "bun:test"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type ServerProcess, startServerProcess, waitForOk } from "../bench/support/processes.ts"
import { eventOf, parseSse } from "../server/harness.ts"
import { type FakeStep, type RecordedRequest, startFakeProvider } from "../support/fake-provider.ts"

const TOKEN = "replica-test-token"
const NAMES = ["r1", "r2", "r3"] as const
const START_TIMEOUT_MS = 90_000
type Name = (typeof NAMES)[number]

let dir: string
let fake: Awaited<ReturnType<typeof startFakeProvider>>
let haproxy: ReturnType<typeof Bun.spawn> | undefined
let front: string
let stats: string
const ports = new Map<Name, number>()
const replicas = new Map<Name, ServerProcess>()

/** The model: asks to restart the service named in the question, then answers once it ran. */
function model(request: RecordedRequest): FakeStep {
  const messages = (request.body?.messages ?? []) as Array<{ role: string; content: unknown }>
  const last = messages.at(-1)
  if (last?.role === "tool") return { content: "Done." }
  const service = /restart (svc-\d+)/.exec(String(last?.content ?? ""))?.[1] ?? "svc-x"
  return { toolCalls: [{ name: "restart", arguments: { service } }] }
}

async function freePort(): Promise<number> {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } })
  const { port } = probe
  probe.stop(true)
  return port
}

async function startReplica(name: Name): Promise<void> {
  const server = await startServerProcess(
    [
      "bun",
      "src/main.ts",
      "serve",
      "--config",
      join(dir, `config-${name}.yaml`),
      "--port",
      String(ports.get(name)),
      // The default lame duck; the test helper turns it off for servers no balancer watches.
    ],
    { SVC_DRAIN_DELAY: "5" },
    // A replica started during the rolling restart competes with 300 conversations for the CPU;
    // like a rollout, the test waits for it however long it takes to be ready.
    START_TIMEOUT_MS,
  )
  replicas.set(name, server)
  await waitForOk(`${server.url}/readyz`, START_TIMEOUT_MS)
}

beforeAll(async () => {
  const which = Bun.spawnSync(["sh", "-c", "command -v haproxy"])
  if (which.exitCode !== 0)
    throw new Error("haproxy is not installed: apt-get install haproxy (.ci/run does)")
  dir = mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), "dupin-replicas-"))
  fake = await startFakeProvider()
  fake.script(...Array.from({ length: 20_000 }, () => model))
  // Each replica's tool says which replica ran it: the identity of the one that resumed, from the
  // replica itself rather than from the balancer. It also writes a file: an approved call takes
  // effect on whichever replica resumes it (it runs in the writable view there).
  mkdirSync(join(dir, "done"))
  for (const name of NAMES) {
    writeFileSync(
      join(dir, `toolsets-${name}.yaml`),
      `toolsets:
  ops/restart:
    description: Restart a service
    tools:
      - name: restart
        description: Restart a service
        command: "echo restarted {{ service }} on ${name} | tee ${join(dir, "done")}/{{ service }}"
        parameters:
          service: { type: string }
        requires_approval: true
`,
    )
    writeFileSync(
      join(dir, `config-${name}.yaml`),
      `model: openai/gpt-4o
api_key: test-key
api_base: ${fake.url}
custom_toolsets: [${join(dir, `toolsets-${name}.yaml`)}]
server:
  auth_token: ${TOKEN}
  approval_secret: shared-by-every-replica
  drain_delay: 5
`,
    )
  }
  for (const name of NAMES) ports.set(name, await freePort())
  const frontPort = await freePort()
  front = `http://127.0.0.1:${frontPort}`
  const statsPort = await freePort()
  stats = `http://127.0.0.1:${statsPort}/stats;csv`
  writeFileSync(
    join(dir, "haproxy.cfg"),
    `global
  maxconn 4096
defaults
  mode http
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  timeout check 5s
  retries 2
  option redispatch
listen stats
  bind 127.0.0.1:${statsPort}
  stats enable
  stats uri /stats
frontend api
  bind 127.0.0.1:${frontPort}
  default_backend dupin
backend dupin
  balance roundrobin
  option httpchk GET /readyz
  http-check expect status 200
  # Every 200 ms (100 ms once one failed), out after 2 misses: a 503, or no answer in 5 s (a
  # replica busy with 300 conversations answers probes late, which is not a miss).
  default-server inter 200ms fastinter 100ms fall 2 rise 1
  # The test names the replica a resume should land on; a replica that is down is skipped.
${NAMES.map((n) => `  use-server ${n} if { req.hdr(x-replica) -m str ${n} }`).join("\n")}
  http-response set-header X-Replica %s
${NAMES.map((n) => `  server ${n} 127.0.0.1:${ports.get(n)} check`).join("\n")}
`,
  )
  for (const name of NAMES) await startReplica(name)
  haproxy = Bun.spawn(["haproxy", "-db", "-f", join(dir, "haproxy.cfg")], {
    stdout: "ignore",
    stderr: "pipe",
  })
  await waitForOk(`${front}/readyz`)
  // Every replica seen up by the balancer before the load starts.
  for (const name of NAMES) await balancerSees(name, "UP")
}, 120_000)

afterAll(async () => {
  haproxy?.kill("SIGKILL")
  await haproxy?.exited
  await Promise.all([...replicas.values()].map((r) => r.stop("SIGKILL")))
  await fake?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

/** Waits until HAProxy's own view of replica `name` (its stats page) is `status`; the seconds it took. */
async function balancerSees(name: Name, status: "UP" | "DOWN", timeoutMs = 60_000): Promise<number> {
  const started = performance.now()
  while (performance.now() - started < timeoutMs) {
    const csv = await (await fetch(stats)).text()
    const row = csv.split("\n").find((line) => line.startsWith(`dupin,${name},`))
    // Column 18 of HAProxy's CSV is the status ("UP", "DOWN", "UP 1/2" while a check is failing).
    if (row?.split(",")[17] === status) return (performance.now() - started) / 1000
    await Bun.sleep(50)
  }
  throw new Error(`HAProxy did not see ${name} ${status} within ${timeoutMs} ms`)
}

/**
 * `paused`/`resumed`: the replica HAProxy sent each request to (its `X-Replica` header); `ranOn`:
 * the replica whose approved tool ran, from the tool's own output.
 */
type Outcome = { paused: string; resumed: string; ranOn: string; ok: boolean; error?: string }

async function post(body: Record<string, unknown>, replica?: string): Promise<Response> {
  return fetch(`${front}/api/chat`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${TOKEN}`,
      ...(replica ? { "x-replica": replica } : {}),
    },
    body: JSON.stringify({ ...body, stream: true, enable_tool_approval: true }),
  })
}

/**
 * One conversation: the question pauses for approval, the approval resumes it (on `resumeOn(paused)`
 * when given), the approved tool runs and the model answers.
 */
async function conversation(n: number, resumeOn?: (paused: string) => string | undefined): Promise<Outcome> {
  const outcome: Outcome = { paused: "", resumed: "", ranOn: "", ok: false }
  try {
    const first = await post({ ask: `please restart svc-${n}` })
    outcome.paused = first.headers.get("x-replica") ?? ""
    if (first.status !== 200) throw new Error(`pause: HTTP ${first.status} ${await first.text()}`)
    const paused = await parseSse(first)
    const { conversation_history: history, pending_approvals: pending } = eventOf(
      paused.events,
      "approval_required",
    )
    const second = await post(
      {
        conversation_history: history,
        tool_decisions: pending.map((p) => ({ tool_call_id: p.tool_call_id, approved: true })),
      },
      resumeOn?.(outcome.paused),
    )
    outcome.resumed = second.headers.get("x-replica") ?? ""
    if (second.status !== 200) throw new Error(`resume: HTTP ${second.status} ${await second.text()}`)
    const resumed = await parseSse(second)
    const ran = resumed.events.find((e) => e.event === "tool_calling_result")
    const answer = eventOf(resumed.events, "ai_answer_end")
    if (answer.analysis !== "Done.") throw new Error(`answer: ${answer.analysis}`)
    outcome.ranOn = new RegExp(`restarted svc-${n} on (r\\d)`).exec(JSON.stringify(ran?.data))?.[1] ?? ""
    if (!outcome.ranOn) {
      throw new Error(`the approved tool did not run: ${JSON.stringify(ran?.data)}`)
    }
    const written = readFileSync(join(dir, "done", `svc-${n}`), "utf8")
    if (written.trim() !== `restarted svc-${n} on ${outcome.ranOn}`) throw new Error(`written: ${written}`)
    outcome.ok = true
  } catch (error) {
    outcome.error = String(error)
  }
  return outcome
}

const next = (name: string): string => NAMES[(NAMES.indexOf(name as Name) + 1) % NAMES.length] as string

test("300 concurrent conversations with approvals all succeed, every resume on another replica than its pause", async () => {
  const outcomes = await Promise.all(Array.from({ length: 300 }, (_, n) => conversation(n, next)))
  const failed = outcomes.filter((o) => !o.ok)
  console.log(`300 concurrent: ${outcomes.length - failed.length} succeeded, ${failed.length} failed`)
  expect(failed.slice(0, 3)).toEqual([])
  expect(outcomes.every((o) => o.paused !== "" && o.resumed !== "" && o.paused !== o.resumed)).toBe(true)
  // The replica that ran the approved call is the one the balancer named, not the one that paused.
  expect(outcomes.filter((o) => o.ranOn !== o.resumed || o.ranOn === o.paused)).toEqual([])
  // Round robin really spread the pauses.
  expect(new Set(outcomes.map((o) => o.paused)).size).toBe(3)
}, 120_000)

test("a rolling restart under the same load (300 concurrent, SIGTERM one replica at a time) fails zero conversations", async () => {
  let restarting = true
  let n = 1000
  const outcomes: Outcome[] = []
  const worker = async () => {
    while (restarting) outcomes.push(await conversation(n++, next))
  }
  // As many conversations in flight as the first test: the load the issue names.
  const workers = Array.from({ length: 300 }, worker)
  // The first replica goes once the load is steady (the first wave done), not in the burst of 300
  // conversations starting at once, when a loaded host answers the balancer's probes slowest.
  while (outcomes.length < 300) await Bun.sleep(100)
  const started = performance.now()
  const steps: string[] = []
  for (const name of NAMES) {
    const old = replicas.get(name) as ServerProcess
    const exited = old.stop("SIGTERM")
    const out = await balancerSees(name, "DOWN")
    expect(await exited).toBe(0)
    const gone = (performance.now() - started) / 1000
    await startReplica(name)
    // The next one goes once the balancer sends to this one again (as a rollout waits for Ready).
    const back = await balancerSees(name, "UP")
    expect(replicas.get(name)?.pid).not.toBe(old.pid)
    steps.push(
      `${name}: out of the balancer ${out.toFixed(1)} s after SIGTERM, exited at +${gone.toFixed(1)} s of the restart, new one in ${back.toFixed(1)} s after ready`,
    )
  }
  const rollingS = (performance.now() - started) / 1000
  restarting = false
  await Promise.all(workers)
  const failed = outcomes.filter((o) => !o.ok)
  const elsewhere = outcomes.filter((o) => o.ok && o.paused !== o.ranOn).length
  console.log(
    `rolling restart: ${outcomes.length} conversations, ${failed.length} failed, ${elsewhere} resumed on ` +
      `another replica; 3 replicas replaced in ${rollingS.toFixed(1)} s\n  ${steps.join("\n  ")}`,
  )
  expect(outcomes.length).toBeGreaterThan(300)
  expect(failed.slice(0, 3)).toEqual([])
  expect(failed.length).toBe(0)
}, 420_000)

test("an approval signed on a replica that is gone resumes on another", async () => {
  const outcome = await conversation(5000, (paused) => {
    // The replica that signed is killed outright before the person approves.
    replicas.get(paused as Name)?.proc.kill("SIGKILL")
    return undefined
  })
  expect(outcome.error).toBeUndefined()
  expect(outcome.ok).toBe(true)
  expect(outcome.resumed).not.toBe(outcome.paused)
  expect(outcome.ranOn).toBe(outcome.resumed)
}, 60_000)
