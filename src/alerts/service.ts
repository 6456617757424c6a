/**
 * Alert-triggered investigations as one service: the store, this replica's queue worker, intake,
 * and delivery to the sinks. The HTTP routes and `serve` talk to it; it talks to the engine door
 * through `investigate`.
 */
import { hostname } from "node:os"
import type { Config } from "../config/config.ts"
import { errorMessage } from "../errors.ts"
import { log } from "../log.ts"
import { createRuntime, type Runtime } from "../runtime/runtime.ts"
import type { AlertInput, Investigation, InvestigationStatus } from "../store/investigation.ts"
import { openStore } from "../store/open.ts"
import type { InvestigationStore, ListOptions } from "../store/store.ts"
import { DEFAULT_INVESTIGATION_TIMEOUT_MS, investigate, investigationEngine } from "./investigate.ts"
import { AlertMetrics, type MetricsRegistryLike } from "./metrics.ts"
import { InvestigationQueue, type RunOutcome } from "./queue.ts"
import { DEFAULT_DELIVERY_POLICY, type DeliveryPolicy, deliver, undelivered } from "./sinks/deliver.ts"
import type { Sink } from "./sinks/sink.ts"
import { slackSink } from "./sinks/slack.ts"
import { webhookSink } from "./sinks/webhook.ts"

export type AlertServiceOptions = {
  /** A store opened by the caller (tests); default: the configured one. */
  store?: InvestigationStore
  leaseMs?: number
  pollMs?: number
  timeoutMs?: number
  delivery?: DeliveryPolicy
  owner?: string
}

/** One item of the intake answer (CONTRACT §10). */
export type IntakeItem = {
  id: string | null
  fingerprint: string
  status: InvestigationStatus | "refused"
  deduplicated?: true
}

export type IntakeResult = { refused: number; investigations: IntakeItem[] }

export const DEFAULT_LEASE_MS = 30_000
const RESUME_WINDOW_MS = 24 * 3600_000
const RESUME_AFTER_MS = 60_000

export class AlertService {
  readonly metrics: AlertMetrics
  readonly #config: Config
  readonly #runtime: Runtime
  readonly #options: AlertServiceOptions
  readonly #sinks: Sink[]
  readonly #deliveries = new Set<Promise<void>>()
  readonly #stopDeliveries = new AbortController()
  readonly #started = Promise.withResolvers<{ store: InvestigationStore; queue: InvestigationQueue }>()
  readonly #ready = this.#started.promise
  #starting = false
  #failure: string | undefined

  /** `runtime` is the server's (a test may give a Config: it gets a runtime of its own). */
  constructor(runtime: Runtime | Config, registry: MetricsRegistryLike, options: AlertServiceOptions = {}) {
    this.#runtime = "executor" in runtime ? runtime : createRuntime(runtime)
    const config = this.#runtime.config
    this.#config = config
    this.#options = options
    this.metrics = new AlertMetrics(registry)
    this.#sinks = sinksFor(config)
    this.#ready.catch((error: unknown) => {
      this.#failure = errorMessage(error)
      log.error("the investigation store could not be opened; alert intake answers 503", {
        error: this.#failure,
      })
    })
  }

  /**
   * Opens the store and starts the worker. Called once the server holds its port: a second
   * `dupin serve` that cannot bind must not touch the first one's SQLite store (at start, running
   * investigations there are taken for a crash's and put back in the queue).
   */
  start(): void {
    if (this.#starting) return
    this.#starting = true
    this.#start().then(this.#started.resolve, this.#started.reject)
  }

  /** Resolves once the store is open and the worker runs; rejects if the store cannot be opened. */
  async ready(): Promise<InvestigationStore> {
    return (await this.#ready).store
  }

  async #start(): Promise<{ store: InvestigationStore; queue: InvestigationQueue }> {
    const config = this.#config
    const store = this.#options.store ?? (await openStore(config.store, config.env))
    // SQLite is one process's file: a `running` row there was left by a crash of this server.
    // PostgreSQL is shared: another replica may be running it; its lease says when it is free.
    if (store.engine === "sqlite") {
      // One line per investigation, as for every other state change.
      for (const id of await store.requeueAllRunning())
        log.info("investigation requeued", { id, reason: "crash" })
    }
    const llm = investigationEngine(this.#runtime)
    const timeoutMs = this.#options.timeoutMs ?? DEFAULT_INVESTIGATION_TIMEOUT_MS
    const queue = new InvestigationQueue({
      store,
      owner: this.#options.owner ?? `${hostname()}:${process.pid}:${crypto.randomUUID().slice(0, 8)}`,
      maxConcurrent: config.alerts.maxConcurrent,
      leaseMs: this.#options.leaseMs ?? DEFAULT_LEASE_MS,
      pollMs: this.#options.pollMs ?? 1_000,
      run: async (investigation, signal): Promise<RunOutcome> => {
        this.metrics.queueWait.observe((Date.now() - investigation.createdAt) / 1000)
        const result = await investigate(this.#runtime, llm, investigation.alert, { signal, timeoutMs })
        return { status: "done", result }
      },
      onFinished: (investigation, outcome) => {
        const seconds = (Date.now() - (investigation.startedAt ?? Date.now())) / 1000
        this.metrics.duration.observe(seconds, { status: outcome.status })
        this.#deliver(store, investigation.id)
      },
      onTick: () => {
        store.counts().then(
          (counts) => this.metrics.setCounts(counts),
          () => undefined,
        )
      },
    })
    queue.start()
    void this.#resumeDeliveries(store)
    log.info("alert investigations ready", {
      store: store.engine,
      max_concurrent: config.alerts.maxConcurrent,
      max_queued: config.alerts.maxQueued,
      sinks: this.#sinks.map((s) => s.name),
    })
    return { store, queue }
  }

  /** Queues one investigation per firing alert not seen within the dedupe window. */
  async intake(alerts: readonly AlertInput[]): Promise<IntakeResult> {
    const { store, queue } = await this.#ready
    const { dedupeWindow, maxQueued } = this.#config.alerts
    const investigations: IntakeItem[] = []
    let refused = 0
    for (const alert of alerts) {
      if (alert.status !== "firing") {
        this.metrics.alerts.inc({ outcome: "resolved" })
        continue
      }
      const outcome = await store.enqueue(alert, { dedupeWindow, maxQueued })
      const alertname = alert.labels.alertname ?? null
      if (outcome.kind === "full") {
        refused++
        this.metrics.alerts.inc({ outcome: "refused" })
        log.warn("alert refused: the investigation queue is full", {
          fingerprint: alert.fingerprint,
          alertname,
          max_queued: maxQueued,
        })
        investigations.push({ id: null, fingerprint: alert.fingerprint, status: "refused" })
        continue
      }
      const { investigation } = outcome
      if (outcome.kind === "created") {
        this.metrics.alerts.inc({ outcome: "created" })
        log.info("investigation queued", { id: investigation.id, fingerprint: alert.fingerprint, alertname })
        investigations.push({
          id: investigation.id,
          fingerprint: alert.fingerprint,
          status: investigation.status,
        })
      } else {
        this.metrics.alerts.inc({ outcome: "deduplicated" })
        investigations.push({
          id: investigation.id,
          fingerprint: alert.fingerprint,
          status: investigation.status,
          deduplicated: true,
        })
      }
    }
    queue.wake()
    return { refused, investigations }
  }

  async get(id: string): Promise<Investigation | undefined> {
    return (await this.ready()).get(id)
  }

  async list(options: ListOptions): Promise<Investigation[]> {
    return (await this.ready()).list(options)
  }

  /** `/api/info`'s `alerts` entry: the queue as this replica sees it. */
  async info(): Promise<Record<string, unknown>> {
    if (this.#failure) return { enabled: true, error: this.#failure }
    const { store, queue } = await this.#ready
    return {
      enabled: true,
      store: store.engine,
      max_concurrent: this.#config.alerts.maxConcurrent,
      max_queued: this.#config.alerts.maxQueued,
      running_here: queue.running,
      counts: await store.counts(),
      sinks: this.#sinks.map((s) => s.name),
    }
  }

  /** SIGTERM: running investigations get `graceMs`, then go back to the queue; the store closes. */
  async shutdown(graceMs: number): Promise<void> {
    if (!this.#starting) return
    let started: { store: InvestigationStore; queue: InvestigationQueue }
    try {
      started = await this.#ready
    } catch {
      return
    }
    await started.queue.drain(graceMs)
    // Deliveries in their backoff stop here; the attempts so far are recorded.
    this.#stopDeliveries.abort()
    await Promise.race([Promise.all(this.#deliveries), Bun.sleep(2_000)])
    await started.store.close().catch(() => undefined)
  }

  /**
   * Deliveries a crash or restart cut short (findings must not be lost on the way out either):
   * those of the last day still owed attempts. On a shared store, only those finished over a
   * minute ago, so a replica that is delivering right now is not doubled.
   */
  async #resumeDeliveries(store: InvestigationStore): Promise<void> {
    if (this.#sinks.length === 0) return
    const policy = this.#options.delivery ?? DEFAULT_DELIVERY_POLICY
    const now = Date.now()
    const before = store.engine === "sqlite" ? now : now - RESUME_AFTER_MS
    try {
      const finished = await store.finishedBetween(now - RESUME_WINDOW_MS, before, 500)
      const owed = finished.filter((i) => undelivered(i, this.#sinks, policy))
      if (owed.length > 0) log.info("resuming deliveries cut short by a restart", { count: owed.length })
      for (const investigation of owed) this.#deliver(store, investigation.id)
    } catch (error) {
      log.warn("could not look for deliveries to resume", { error: errorMessage(error) })
    }
  }

  #deliver(store: InvestigationStore, id: string): void {
    if (this.#sinks.length === 0) return
    const task = (async () => {
      const investigation = await store.get(id)
      if (!investigation) return
      await deliver(
        investigation,
        this.#sinks,
        this.#options.delivery ?? DEFAULT_DELIVERY_POLICY,
        (deliveries) => store.setDeliveries(id, deliveries),
        (sink, ok) => this.metrics.deliveries.inc({ sink: sink.type, outcome: ok ? "ok" : "failed" }),
        this.#stopDeliveries.signal,
      )
    })().catch((error: unknown) => log.error("delivery failed", { id, error: errorMessage(error) }))
    this.#deliveries.add(task)
    void task.finally(() => this.#deliveries.delete(task))
  }
}

function sinksFor(config: Config): Sink[] {
  const { sinks } = config.alerts
  const publicUrl = config.server.publicUrl
  return sinks.map((sink, i) => {
    const many = sinks.filter((s) => s.type === sink.type).length > 1
    const name = many ? `${sink.type}#${i + 1}` : sink.type
    return sink.type === "webhook"
      ? webhookSink(name, sink, config.env, publicUrl)
      : slackSink(name, sink, config.env, publicUrl)
  })
}
