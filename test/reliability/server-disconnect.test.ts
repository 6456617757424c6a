/**
 * 100 clients hang up mid-stream while their tools run (`sleep 5` in a YAML toolset). Afterwards no
 * tool process is left (found by a tag in their argv: under containment the sandbox helper starts
 * them, not the server; and every tool's process group), and the server's memory is back near idle.
 */
import { afterAll, beforeAll, expect, test } from "bun:test"
import { mib, sampleProc } from "../bench/support/proc.ts"
import { liveByArgv, liveInGroup } from "../support/live-processes.ts"
import { withinDeadline } from "./deadline.ts"
import { callThenAnswer, type ServedDupin, serveDupin, streamUntil } from "./server.ts"

const CLIENTS = process.env.DUPIN_SOAK === "1" ? 400 : 100
/** The nap length, tagged so the test finds its own tool processes. */
const NAP = "5.0139"

let served: ServedDupin
beforeAll(async () => {
  // Every client's tool must be running when they hang up: room for all of them at once.
  served = await serveDupin(
    callThenAnswer("nap", { seconds: NAP }),
    `security: { max_concurrent_tool_processes: ${CLIENTS} }\n`,
  )
})
afterAll(async () => {
  await served.stop()
})

async function settledNaps(ms: number): Promise<number[]> {
  const deadline = performance.now() + ms
  let live = liveByArgv(`sleep ${NAP}`)
  while (live.length > 0 && performance.now() < deadline) {
    await Bun.sleep(100)
    live = liveByArgv(`sleep ${NAP}`)
  }
  return live
}

test(`${CLIENTS} clients disconnecting while tools run leave no process behind`, async () => {
  const pid = served.server.pid
  // Warm-up (tokenizer, prerequisites), then the idle baseline.
  const warm = await served.chat({ ask: "warm up", stream: false })
  expect(warm.status).toBe(200)
  await Bun.sleep(500)
  const idleMiB = mib(sampleProc(pid).rssKb)

  const aborts = Array.from({ length: CLIENTS }, () => new AbortController())
  await withinDeadline(
    "streams reaching start_tool_calling",
    15_000,
    Promise.all(
      aborts.map((a) => streamUntil(served, { ask: "nap please" }, "start_tool_calling", a.signal)),
    ),
  )
  // Every tool process is the leader of its own group (detached): remember the groups.
  let groups: number[] = []
  const deadline = performance.now() + 5_000
  while (groups.length < CLIENTS && performance.now() < deadline) {
    await Bun.sleep(50)
    groups = liveByArgv(`sleep ${NAP}`)
  }
  expect(groups.length).toBe(CLIENTS)
  const peakMiB = mib(sampleProc(pid).rssKb)

  for (const a of aborts) a.abort()
  // Abort → SIGTERM to each group; KILL_GRACE 2 s before SIGKILL. 4 s is long before `sleep 5` ends.
  expect(await settledNaps(4_000)).toEqual([])
  expect(groups.flatMap((g) => liveInGroup(g))).toEqual([])

  await Bun.sleep(1_000)
  const afterMiB = mib(sampleProc(pid).rssKb)
  console.log(
    `disconnect: idle ${idleMiB.toFixed(1)} MiB, with ${CLIENTS} streams ${peakMiB.toFixed(1)} MiB, after ${afterMiB.toFixed(1)} MiB`,
  )
  expect(afterMiB - idleMiB).toBeLessThan(48)

  // And the server still works.
  const after = await served.chat({ ask: "still there?", stream: false })
  expect(after.status).toBe(200)
}, 30_000)
