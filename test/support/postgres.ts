/**
 * A real PostgreSQL server for the store tests: Debian's `initdb` and `pg_ctl` on a free loopback
 * port with a temp data dir, removed again by `stop()`. PostgreSQL refuses to run as root, so as
 * root the server runs as the `postgres` user (created by the Debian package) or `nobody`.
 */
import { afterAll, beforeAll } from "bun:test"
import { chownSync, mkdtempSync, rmSync } from "node:fs"
import { join } from "node:path"
import { freePort } from "../toolset/prometheus/server.ts"

export type PostgresServer = { url: string; stop: () => Promise<void> }

export const POSTGRES_MISSING =
  "initdb/pg_ctl are not on PATH or in /usr/lib/postgresql/*/bin. Install PostgreSQL (Debian: apt-get install -y postgresql; .ci/run does this)."

/** The folder holding initdb and pg_ctl, or null when PostgreSQL is not installed. */
export function postgresBin(): string | null {
  const onPath = Bun.which("pg_ctl")
  if (onPath && Bun.which("initdb")) return onPath.replace(/\/pg_ctl$/, "")
  const glob = new Bun.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
  for (const found of glob.scanSync({ absolute: true })) return found.replace(/\/pg_ctl$/, "")
  return null
}

/** The user the server runs as, and the argv prefix that runs a command as that user. */
function runAs(): { user: string; uid: number; gid: number; prefix: string[] } | null {
  if (process.getuid?.() !== 0) return null
  for (const user of ["postgres", "nobody"]) {
    const id = Bun.spawnSync(["id", "-u", user])
    const gid = Bun.spawnSync(["id", "-g", user])
    if (id.exitCode === 0 && gid.exitCode === 0) {
      return {
        user,
        uid: Number(id.stdout.toString().trim()),
        gid: Number(gid.stdout.toString().trim()),
        prefix: ["runuser", "-u", user, "--"],
      }
    }
  }
  throw new Error("running as root and neither the postgres nor the nobody user exists")
}

function run(argv: string[], what: string): void {
  const result = Bun.spawnSync(argv, {
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LC_ALL: "C" },
  })
  if (result.exitCode !== 0) {
    throw new Error(`${what} failed (${result.exitCode}): ${result.stderr.toString().slice(-2000)}`)
  }
}

export async function startPostgres(bin: string): Promise<PostgresServer> {
  // Not os.tmpdir(): the test run's private temp root is not traversable by another user.
  const dir = mkdtempSync("/tmp/dupin-pg-")
  const data = join(dir, "data")
  const as = runAs()
  if (as) chownSync(dir, as.uid, as.gid)
  const prefix = as?.prefix ?? []
  const port = await freePort()
  run(
    [...prefix, `${bin}/initdb`, "-D", data, "-U", "dupin", "--auth=trust", "-E", "UTF8", "--no-sync"],
    "initdb",
  )
  run(
    [
      ...prefix,
      `${bin}/pg_ctl`,
      "-D",
      data,
      "-l",
      join(dir, "log"),
      "-w",
      "-t",
      "30",
      "-o",
      `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c max_connections=100`,
      "start",
    ],
    "pg_ctl start",
  )
  const stop = async () => {
    Bun.spawnSync([...prefix, `${bin}/pg_ctl`, "-D", data, "-m", "immediate", "-w", "stop"], {
      stdout: "ignore",
      stderr: "ignore",
    })
    rmSync(dir, { recursive: true, force: true })
  }
  return { url: `postgres://dupin@127.0.0.1:${port}/postgres`, stop }
}

/** A new empty database on `server`; returns its URL. */
export async function createDatabase(server: PostgresServer, name: string): Promise<string> {
  const { SQL } = await import("bun")
  const sql = new SQL(server.url)
  try {
    await sql.unsafe(`CREATE DATABASE ${name}`)
  } finally {
    await sql.close()
  }
  return server.url.replace(/\/postgres$/, `/${name}`)
}

/**
 * A PostgreSQL server for the calling test file: started before its first test, stopped after
 * its last. `database(name)` makes an empty database on it and returns its URL.
 */
export function postgresForThisFile(): { database: (name: string) => Promise<string> } {
  let server: PostgresServer | undefined
  beforeAll(async () => {
    const bin = postgresBin()
    if (!bin) throw new Error(POSTGRES_MISSING)
    server = await startPostgres(bin)
  }, 60_000)
  afterAll(async () => {
    await server?.stop()
  })
  return {
    database: (name) => {
      if (!server) throw new Error("PostgreSQL did not start")
      return createDatabase(server, name)
    },
  }
}
