/**
 * How to start the sandbox helper with the program that is running now: the compiled binary runs
 * its hidden `__sandbox-helper` command; from source, Bun runs the helper's file.
 */
import { dirname, join } from "node:path"

export const HELPER_COMMAND = "__sandbox-helper"

/** Compiled binaries load their modules from Bun's embedded file system. */
function compiled(): boolean {
  return Bun.main.startsWith("/$bunfs/") || import.meta.dir.startsWith("/$bunfs/")
}

export function helperArgv(): string[] {
  if (compiled()) return [process.execPath, HELPER_COMMAND]
  return [process.execPath, "--no-install", join(import.meta.dir, "helper", "main.ts")]
}

/** Host paths the helper itself needs inside the sandbox (they may lie under a masked HOME). */
export function helperPaths(): string[] {
  return compiled()
    ? [process.execPath]
    : [process.execPath, dirname(join(import.meta.dir, "helper", "main.ts"))]
}
