/** The HTTP API: `createApp` for embedding and tests, `startServer` for `dupin serve`. */
export { type App, type AppOptions, createApp } from "./app.ts"
export {
  DEFAULT_SHUTDOWN_GRACE_MS,
  isLoopback,
  type RunningServer,
  type StartOptions,
  startServer,
} from "./server.ts"
