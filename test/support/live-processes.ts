/**
 * Process checks shared by tests and benchmarks. PID 1 in the test container does not reap
 * orphans, so zombies (state Z) are not counted as live.
 */
function live(args: string[]): string[] {
  const ps = Bun.spawnSync(["ps", "-o", "pid=,stat=", ...args])
  return ps.stdout
    .toString()
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !/\sZ/.test(l))
}

/** Live members of a process group, as "pid stat" lines. */
export function liveInGroup(pgid: number): string[] {
  return live(["-g", String(pgid)])
}

/** Live children of `pid`, as "pid stat" lines. */
export function liveChildren(pid: number): string[] {
  return live(["--ppid", String(pid)])
}

/**
 * Live processes whose command line ends with `argvTail`, wherever they run: under containment a
 * tool is started by the sandbox helper, not by the server, so tests find their own tool processes
 * by a tag in the argv that no other process uses.
 */
export function liveByArgv(argvTail: string): number[] {
  const ps = Bun.spawnSync(["ps", "-eo", "pid=,stat=,args="]).stdout.toString()
  return ps
    .split("\n")
    .filter((l) => l.endsWith(argvTail) && !/^\s*\d+\s+Z/.test(l))
    .map((l) => Number(l.trim().split(/\s+/)[0]))
}

/** Live processes anywhere on the host whose argv contains `text`, as `ps` lines. */
export function liveWith(text: string): string[] {
  const ps = Bun.spawnSync(["ps", "-eo", "pid=,stat=,args="]).stdout.toString()
  return ps.split("\n").filter((l) => l.includes(text) && !/^\s*\d+\s+Z/.test(l) && !l.includes("ps -eo"))
}

/** `liveWith(text)` once none is left, or after 10 s what still is. */
export async function goneWith(text: string): Promise<string[]> {
  const deadline = performance.now() + 10_000
  while (liveWith(text).length > 0 && performance.now() < deadline) await Bun.sleep(50)
  return liveWith(text)
}
