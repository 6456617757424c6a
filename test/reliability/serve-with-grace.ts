/**
 * `dupin serve`'s shutdown path with a short grace period, for tests: loads the config file given as
 * argv[2], serves on a free port, and on SIGTERM drains as `serve` does (lame duck first, for the
 * config's `server.drain_delay`) with GRACE_MS (the CLI always uses 30 s).
 */
import { Config } from "../../src/config/config.ts"
import { startServer } from "../../src/server/index.ts"

const config = Config.loadFromFile(process.argv[2] ?? "config.yaml")
const server = startServer(config, { port: 0 })
process.on("SIGTERM", () => {
  server.shutdown(Number(process.env.GRACE_MS ?? 1000), { lameDuck: true }).then(
    () => process.exit(0),
    () => process.exit(1),
  )
})
