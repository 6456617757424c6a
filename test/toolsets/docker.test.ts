import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test"
import { existsSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ToolResultStatus } from "../../src/tool/result.ts"
import { lines, StandIns } from "./stand-ins.ts"

let d: StandIns

beforeAll(async () => {
  d = new StandIns(["docker"])
  await d.executor.ensureReady()
})
afterAll(() => d.cleanup())
beforeEach(() => d.reset())

describe("docker/core", () => {
  test("enabled when `docker --version` answers; failed when docker is missing", async () => {
    expect(d.toolset("docker/core").status).toBe("enabled")
    const none = new StandIns([], { pathDirs: [mkdtempSync(join(tmpdir(), "dupin-empty-path-"))] })
    await none.executor.ensureReady()
    expect(none.toolset("docker/core").error).toBe("docker not found on PATH")
    none.cleanup()
  })

  test("docker_ps, running only or all", async () => {
    const ps = lines("CONTAINER ID   IMAGE   STATUS", "0123456789ab   nginx   Exited (137) 2 minutes ago")
    d.respond("docker", ps)
    expect((await d.call("docker_ps", {})).data).toBe(ps)
    await d.call("docker_ps", { all: true })
    expect(d.calls()).toEqual([
      ["docker", "ps"],
      ["docker", "ps", "--all"],
    ])
  })

  test("docker_inspect of one container", async () => {
    d.respond("docker", '[{"State":{"OOMKilled":true}}]\n')
    const r = await d.call("docker_inspect", { container: "web_1" })
    expect(r.data).toContain('"OOMKilled":true')
    expect(d.calls()).toEqual([["docker", "inspect", "--type", "container", "web_1"]])
  })

  test("docker_logs: 200 lines by default, tail capped at 10000, since as a duration or a time", async () => {
    d.respond("docker", lines("2024-05-01T10:00:00Z boot"))
    expect((await d.call("docker_logs", { container: "web" })).data).toBe("2024-05-01T10:00:00Z boot\n")
    await d.call("docker_logs", { container: "web", tail: 50, since: "15m" })
    await d.call("docker_logs", { container: "0123456789ab", tail: 50000, since: "2024-05-01T10:00:00Z" })
    expect(d.calls()).toEqual([
      ["docker", "logs", "--timestamps", "--tail", "200", "web"],
      ["docker", "logs", "--timestamps", "--tail", "50", "--since", "15m", "web"],
      [
        "docker",
        "logs",
        "--timestamps",
        "--tail",
        "10000",
        "--since",
        "2024-05-01T10:00:00Z",
        "0123456789ab",
      ],
    ])
  })

  test("docker_images and docker_stats (one snapshot, never a stream)", async () => {
    d.respond("docker", lines("REPOSITORY   TAG      IMAGE ID", "nginx        1.27     abc"))
    expect((await d.call("docker_images", {})).data).toContain("nginx        1.27")
    await d.call("docker_stats", {})
    await d.call("docker_stats", { all: true })
    expect(d.calls()).toEqual([
      ["docker", "images"],
      ["docker", "stats", "--no-stream"],
      ["docker", "stats", "--no-stream", "--all"],
    ])
  })

  test("docker_events is bounded in time, optionally filtered by container", async () => {
    d.respond("docker", lines("2024-05-01T10:00:00Z container die 0123 (exitCode=137, name=web)"))
    expect((await d.call("docker_events", {})).data).toContain("container die")
    await d.call("docker_events", { since: "1h", container: "web" })
    expect(d.calls()).toEqual([
      ["docker", "events", "--since", "10m", "--until", "0s"],
      ["docker", "events", "--since", "1h", "--until", "0s", "--filter", "container=web"],
    ])
  })

  test("a daemon that cannot be reached is an error result with docker's message", async () => {
    d.respond("docker", "", {
      exitCode: 1,
      stderr: "Cannot connect to the Docker daemon at unix:///var/run/docker.sock.\n",
    })
    const r = await d.call("docker_ps", {})
    expect(r.status).toBe(ToolResultStatus.ERROR)
    expect(r.error).toContain("Cannot connect to the Docker daemon")
  })

  test("container names and times are pattern-checked and never run", async () => {
    const mark = d.marker("docker")
    for (const [tool, args] of [
      ["docker_inspect", { container: `web; touch ${mark}` }],
      ["docker_logs", { container: "$(id)" }],
      ["docker_logs", { container: "web", since: "10m; id" }],
      ["docker_events", { container: "web", since: "`id`" }],
      ["docker_events", { container: "--format=x" }],
    ] as const) {
      expect((await d.call(tool, args)).status).toBe(ToolResultStatus.ERROR)
    }
    expect(d.calls()).toEqual([])
    expect(existsSync(mark)).toBe(false)
  })
})
