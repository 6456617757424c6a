/**
 * What `serve` calls when `alerts.enabled`. The alert face's modules (intake, queue, sinks, the
 * investigation prompt, the store) load here, not with every `serve`: most servers have no alert
 * intake. The lazy load stays inside alerts/, so the server's dependency on alerts/ stays in the
 * import graph.
 */
import type { Runtime } from "../runtime/runtime.ts"
import type { MetricsRegistryLike } from "./metrics.ts"
import type { AlertService } from "./service.ts"

export function createAlertService(runtime: Runtime, registry: MetricsRegistryLike): AlertService {
  // Bun's require of an ES module is synchronous; the bundler keeps it in a chunk of its own.
  const service: typeof import("./service.ts") = require("./service.ts")
  return new service.AlertService(runtime, registry)
}
