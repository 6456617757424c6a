/**
 * `serve` runs with mimalloc's purging off (src/allocator.ts): it re-executes itself once, in the
 * same process, unless the operator's environment sets the option; the re-executed process takes
 * dupin's variables back out of its environment. The figures behind it are the bench's
 * (server-load); here, only that it happens, and happens only for `serve`.
 */
import { afterEach, describe, expect, test } from "bun:test"
import { readFileSync, rmSync } from "node:fs"
import { PURGE_DELAY, reexecArgv, setUpAllocator } from "../src/allocator.ts"
import { type ServerProcess, startServerProcess } from "./bench/support/processes.ts"
import { serveArgv, writeServeConfig } from "./bench/support/server-config.ts"

type Exec = { file: string; args: string[]; env: Record<string, string | undefined> }

function fakeProcess(argv: string[], env: Record<string, string | undefined>, execArgv: string[] = []) {
  const calls: Exec[] = []
  return {
    calls,
    proc: {
      argv,
      execArgv,
      execPath: "/usr/bin/bun",
      env,
      execve: (file: string, args: string[], e: Record<string, string | undefined>) => {
        calls.push({ file, args, env: e })
      },
    },
  }
}

describe("setUpAllocator", () => {
  test("serve re-executes the same command line with purging off", () => {
    const { proc, calls } = fakeProcess(["bun", "/src/main.ts", "serve", "--port", "0"], { HOME: "/h" }, [
      "--smol",
    ])
    setUpAllocator(proc)
    expect(calls).toEqual([
      {
        file: "/usr/bin/bun",
        args: ["/usr/bin/bun", "--smol", "/src/main.ts", "serve", "--port", "0"],
        env: { HOME: "/h", [PURGE_DELAY]: "-1", DUPIN_ALLOCATOR_SET: "1" },
      },
    ])
  })

  test("no other command re-executes, nor a serve whose environment sets the option", () => {
    for (const [argv, env] of [
      [["bun", "/src/main.ts", "ask", "hi"], {}],
      [["bun", "/src/main.ts", "version"], {}],
      [["bun", "/src/main.ts", "serve"], { [PURGE_DELAY]: "10" }],
    ] as const) {
      const { proc, calls } = fakeProcess([...argv], { ...env })
      setUpAllocator(proc)
      expect(calls).toEqual([])
      expect(proc.env).toEqual({ ...env })
    }
  })

  test("the re-executed process takes dupin's variables back out of its environment", () => {
    const { proc, calls } = fakeProcess(["bun", "/src/main.ts", "serve"], {
      HOME: "/h",
      [PURGE_DELAY]: "-1",
      DUPIN_ALLOCATOR_SET: "1",
    })
    setUpAllocator(proc)
    expect(calls).toEqual([])
    expect(proc.env).toEqual({ HOME: "/h" })
  })

  test("a compiled binary is re-run as itself, without its embedded entry", () => {
    const argv = ["bun", "/$bunfs/root/dupin", "serve", "--config", "c.yaml"]
    expect(reexecArgv({ argv, execArgv: [], execPath: "/usr/local/bin/dupin" })).toEqual([
      "/usr/local/bin/dupin",
      "serve",
      "--config",
      "c.yaml",
    ])
  })

  test("without execve, serve starts with the allocator's defaults", () => {
    const proc = { argv: ["bun", "/src/main.ts", "serve"], execArgv: [], execPath: "/usr/bin/bun", env: {} }
    expect(() => setUpAllocator(proc)).not.toThrow()
    const failing = {
      ...proc,
      execve: () => {
        throw new Error("ENOEXEC")
      },
    }
    expect(() => setUpAllocator(failing)).not.toThrow()
  })
})

describe("dupin serve", () => {
  let server: ServerProcess | undefined
  let dir: string | undefined
  afterEach(async () => {
    await server?.stop()
    server = undefined
    if (dir) rmSync(dir, { recursive: true, force: true })
    dir = undefined
  })

  /** The environment the process image was started with (what execve passed). */
  function initialEnv(pid: number): Record<string, string> {
    const entries = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter(Boolean)
    return Object.fromEntries(entries.map((e) => [e.slice(0, e.indexOf("=")), e.slice(e.indexOf("=") + 1)]))
  }

  test.skipIf(process.platform !== "linux")(
    "runs in the pid it was started as, with purging off, and stops on SIGTERM",
    async () => {
      const files = writeServeConfig("http://127.0.0.1:9/v1")
      dir = files.dir
      server = await startServerProcess(serveArgv(files.configPath))
      expect(initialEnv(server.pid)[PURGE_DELAY]).toBe("-1")
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200)
      expect(await server.stop()).toBe(0)
      server = undefined
    },
    20_000,
  )

  test.skipIf(process.platform !== "linux")(
    "keeps the operator's own setting and does not re-execute",
    async () => {
      const files = writeServeConfig("http://127.0.0.1:9/v1")
      dir = files.dir
      server = await startServerProcess(serveArgv(files.configPath), { [PURGE_DELAY]: "10" })
      const env = initialEnv(server.pid)
      expect(env[PURGE_DELAY]).toBe("10")
      expect(env.DUPIN_ALLOCATOR_SET).toBeUndefined()
    },
    20_000,
  )
})
