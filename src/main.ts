#!/usr/bin/env bun
/**
 * The `dupin` executable: the command line with every face's commands. The faces do not import
 * each other; this entry puts the HTTP face's `serve` into the CLI's table. Nothing heavy is
 * imported here: each command's modules load only when that command runs. The hidden
 * `__sandbox-helper` command is the tool sandbox's helper (containment/helper/main.ts): it runs
 * inside bubblewrap and loads nothing of the CLI.
 */
import { setUpAllocator } from "./allocator.ts"

if (process.argv[2] === "__sandbox-helper") {
  await (await import("./tool/containment/helper/main.ts")).helperMain()
} else {
  // First, before any module is loaded: `serve` may re-execute itself here (allocator.ts).
  setUpAllocator()
  const { commandTable } = await import("./cli/commands.ts")
  const { runMain } = await import("./cli/main.ts")
  await runMain(commandTable(async () => (await import("./server/serve-command.ts")).serveCommand))
}
