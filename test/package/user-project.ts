/**
 * dupin installed the way a user installs it, offline: from the tarball `bun pm pack` makes, from a
 * path to a checkout, and from a git URL. The "checkout" is a copy of the repository's working tree
 * (the files git would commit), so the tests prove what is about to be committed.
 *
 * No network and nothing left behind: the install runs through a proxy address that refuses
 * connections, with a temporary Bun cache hard-linked to the real cache (what `bun install` of
 * this repository filled), and a lockfile built from this repository's bun.lock,
 * so Bun needs no package metadata from a registry. New cache entries (the extracted tarball, the
 * git clone) land in the temporary cache, removed with the rest.
 */
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs"
import { tmpdir, userInfo } from "node:os"
import { dirname, join, relative } from "node:path"

export const REPO = join(import.meta.dir, "../..")

export type Run = { code: number; stdout: string; stderr: string }

/** Where a user's Bun keeps its cache (the test preload points HOME at an empty dir). */
function realCacheDir(): string {
  const out = Bun.spawnSync([process.execPath, "pm", "cache"], {
    env: { ...process.env, HOME: userInfo().homedir },
    stdout: "pipe",
    stderr: "pipe",
  })
  const dir = out.stdout.toString().trim().split("\n").pop() ?? ""
  if (out.exitCode !== 0 || !dir) throw new Error(`bun pm cache failed: ${out.stderr.toString()}`)
  return dir
}

/** The environment of every command run here: a closed proxy port, a temporary cache and home. */
export function isolatedEnv(
  cache: string,
  home: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    TMPDIR: tmpdir(),
    BUN_INSTALL_CACHE_DIR: cache,
    // Any attempt to reach the network fails at once (a closed port as proxy) instead of going out.
    HTTPS_PROXY: "http://127.0.0.1:9",
    HTTP_PROXY: "http://127.0.0.1:9",
    https_proxy: "http://127.0.0.1:9",
    http_proxy: "http://127.0.0.1:9",
    // The fake provider and stubs are on loopback.
    NO_PROXY: "127.0.0.1,localhost",
    no_proxy: "127.0.0.1,localhost",
    GIT_CONFIG_NOSYSTEM: "1",
    ...extra,
  }
}

export async function run(
  argv: string[],
  cwd: string,
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<Run> {
  const proc = Bun.spawn(argv, { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" })
  const timer = setTimeout(() => proc.kill("SIGKILL"), timeoutMs)
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ])
  clearTimeout(timer)
  return { code, stdout, stderr }
}

async function ok(argv: string[], cwd: string, env: Record<string, string>): Promise<string> {
  const result = await run(argv, cwd, env)
  if (result.code !== 0)
    throw new Error(`${argv.join(" ")} (in ${cwd}) exited ${result.code}:\n${result.stderr}`)
  return result.stdout
}

/**
 * A fresh home and a Bun cache made of hard links to the real cache's packages (Bun does not
 * follow symbolic links to cache entries; it reads package files, never rewrites them) and copies
 * of its metadata files, so nothing Bun writes during the test reaches the real cache. The
 * transpiler cache (`@t@`) is left out: Bun rewrites its files.
 */
export async function sandbox(): Promise<{ home: string; cache: string }> {
  const root = mkdtempSync(join(tmpdir(), "dupin-install-"))
  const home = join(root, "home")
  const cache = join(root, "cache")
  mkdirSync(home)
  mkdirSync(cache)
  const real = realCacheDir()
  const entries = readdirSync(real, { withFileTypes: true }).filter((e) => e.name !== "@t@")
  const dirs = entries.filter((e) => e.isDirectory()).map((e) => join(real, e.name))
  const path = { PATH: process.env.PATH ?? "/usr/bin:/bin" }
  let linked = await run(["cp", "-al", ...dirs, cache], root, path)
  // Another file system than the temp dir's: copy (slower, same result).
  if (linked.code !== 0) linked = await run(["cp", "-a", "--reflink=auto", ...dirs, cache], root, path)
  if (linked.code !== 0) throw new Error(`cannot copy Bun's cache ${real}: ${linked.stderr}`)
  for (const entry of entries.filter((e) => e.isFile()))
    copyFileSync(join(real, entry.name), join(cache, entry.name))
  return { home, cache }
}

/** A checkout of the working tree: every file git would commit, no node_modules. */
export async function checkout(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "dupin-checkout-"))
  const listed = await ok(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], REPO, {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    GIT_CONFIG_NOSYSTEM: "1",
  })
  for (const file of listed.split("\0")) {
    if (!file || !(await Bun.file(join(REPO, file)).exists())) continue // deleted, not yet committed
    mkdirSync(dirname(join(dir, file)), { recursive: true })
    cpSync(join(REPO, file), join(dir, file), { preserveTimestamps: true })
  }
  return dir
}

/** `bun pm pack` of a checkout: the path of the tarball. */
export async function pack(checkoutDir: string, env: Record<string, string>): Promise<string> {
  const out = mkdtempSync(join(tmpdir(), "dupin-pack-"))
  await ok([process.execPath, "pm", "pack", "--destination", out, "--quiet"], checkoutDir, env)
  const [name] = readdirSync(out).filter((f) => f.endsWith(".tgz"))
  if (!name) throw new Error(`bun pm pack wrote no tarball in ${out}`)
  return join(out, name)
}

/** The checkout as a git repository with one commit: its git URL and commit. */
export async function gitRepo(
  checkoutDir: string,
  env: Record<string, string>,
): Promise<{ url: string; commit: string }> {
  const dir = mkdtempSync(join(tmpdir(), "dupin-git-"))
  cpSync(checkoutDir, dir, { recursive: true })
  const git = (...args: string[]) =>
    ok(["git", "-c", "user.name=test", "-c", "user.email=test@example.invalid", ...args], dir, env)
  await git("init", "-q", "-b", "main")
  await git("add", "-A")
  await git("commit", "-q", "-m", "dupin")
  const commit = (await git("rev-parse", "HEAD")).trim()
  return { url: `git+file://${dir}`, commit }
}

export type Source =
  | { kind: "tarball"; path: string }
  | { kind: "path"; path: string }
  | { kind: "git"; url: string; commit: string }

function spec(source: Source): string {
  return source.kind === "git" ? source.url : source.path
}

/**
 * The project's bun.lock, as Bun would write it after `bun add <source>`: the packages of this
 * repository's lockfile (the same versions, laid out the same way) plus the dupin entry.
 */
async function lockfile(source: Source, project: string, extraDeps: Record<string, string>): Promise<string> {
  const repoLock = Bun.JSONC.parse(await Bun.file(join(REPO, "bun.lock")).text()) as {
    lockfileVersion: number
    configVersion?: number
    packages: Record<string, unknown[]>
  }
  const manifest = (await Bun.file(join(REPO, "package.json")).json()) as Record<
    string,
    Record<string, string>
  >
  const meta: Record<string, unknown> = { dependencies: manifest.dependencies, bin: manifest.bin }
  let entry: unknown[]
  if (source.kind === "tarball") {
    const bytes = new Uint8Array(await Bun.file(source.path).arrayBuffer())
    const integrity = `sha512-${new Bun.CryptoHasher("sha512").update(bytes).digest("base64")}`
    entry = [`dupin@${source.path}`, meta, integrity]
  } else if (source.kind === "git") {
    entry = [`dupin@${source.url}#${source.commit}`, meta, source.commit]
  } else {
    // Bun installs a folder dependency with its devDependencies.
    entry = [
      `dupin@file:${relative(project, source.path)}`,
      { ...meta, devDependencies: manifest.devDependencies },
    ]
  }
  return JSON.stringify(
    {
      lockfileVersion: repoLock.lockfileVersion,
      ...(repoLock.configVersion !== undefined ? { configVersion: repoLock.configVersion } : {}),
      workspaces: { "": { name: "user-project", dependencies: { dupin: spec(source), ...extraDeps } } },
      packages: { ...repoLock.packages, dupin: entry },
    },
    null,
    2,
  )
}

/**
 * A fresh project that depends on dupin from `source` (and on @sinclair/typebox, which the
 * README's toolset example imports), installed offline. Returns the project directory.
 */
export async function installedProject(source: Source, env: Record<string, string>): Promise<string> {
  const project = mkdtempSync(join(tmpdir(), "dupin-user-"))
  const manifest = (await Bun.file(join(REPO, "package.json")).json()) as Record<
    string,
    Record<string, string>
  >
  const typebox = manifest.dependencies?.["@sinclair/typebox"]
  if (!typebox) throw new Error("package.json has no @sinclair/typebox dependency")
  const extraDeps = { "@sinclair/typebox": typebox }
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({
      name: "user-project",
      type: "module",
      dependencies: { dupin: spec(source), ...extraDeps },
    }),
  )
  writeFileSync(join(project, "bun.lock"), await lockfile(source, project, extraDeps))
  // Bun refuses git dependencies with --offline even for a local repository; the closed registry
  // port still keeps the install off the network.
  const offline = source.kind === "git" ? [] : ["--offline"]
  const result = await run([process.execPath, "install", ...offline], project, env)
  if (result.code !== 0) {
    throw new Error(
      `bun install of dupin from ${source.kind} failed (exit ${result.code}). The test installs from Bun's ` +
        `cache only: run \`bun install\` in the repository first.\n${result.stderr}`,
    )
  }
  return project
}
