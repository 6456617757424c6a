import { existsSync, readFileSync } from "node:fs"

export type WaitOptions = {
  /** Give up after this long; generous, because a loaded CI box is slow, never because it is fast. */
  timeoutMs?: number
  /** Time between checks. */
  intervalMs?: number
  /** Names the awaited thing in the failure message. */
  what?: string
}

/**
 * Polls `check` until it returns something other than `undefined`, `null` or `false`, and
 * returns that. Tests wait for the state they need instead of sleeping a fixed time: a fixed
 * sleep is either too short on a busy machine (flaky) or wasted on an idle one.
 */
export async function waitFor<T>(
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  { timeoutMs = 10_000, intervalMs = 10, what = "the condition" }: WaitOptions = {},
): Promise<T> {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined && value !== null && value !== false) return value
    if (performance.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}`)
    await Bun.sleep(intervalMs)
  }
}

/**
 * The pid a process wrote to `file` (`echo $$ > file`). Waits for the whole line: the file
 * exists, empty, between the shell's open and its write, so reading on existence alone races.
 */
export function waitForPid(file: string, options: WaitOptions = {}): Promise<number> {
  return waitFor(
    () => {
      if (!existsSync(file)) return undefined
      const match = /^(\d+)\n/.exec(readFileSync(file, "utf8"))
      return match ? Number(match[1]) : undefined
    },
    { what: `a pid in ${file}`, ...options },
  )
}
