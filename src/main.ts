#!/usr/bin/env bun
/**
 * The `dupin` executable: the command line with every face's commands. The faces do not import
 * each other; this entry puts the HTTP face's `serve` into the CLI's table. Nothing heavy is
 * imported here: each command's modules load only when that command runs.
 */
import { commandTable } from "./cli/commands.ts"
import { runMain } from "./cli/main.ts"

await runMain(commandTable(async () => (await import("./server/serve-command.ts")).serveCommand))
