import type {
  AlertInput,
  Delivery,
  Investigation,
  InvestigationResult,
  InvestigationStatus,
} from "./investigation.ts"

/** What intake did with one alert. */
export type EnqueueOutcome =
  | { kind: "created"; investigation: Investigation }
  /** The fingerprint was investigated (or is queued) within the dedupe window. */
  | { kind: "deduplicated"; investigation: Investigation }
  /** `max_queued` investigations are waiting already. */
  | { kind: "full" }

export type EnqueueOptions = {
  /** Seconds a fingerprint is not investigated again. */
  dedupeWindow: number
  maxQueued: number
  now?: number
}

export type ListOptions = { status?: InvestigationStatus | undefined; limit: number }

/**
 * The durable queue and record of investigations: one interface, two engines (SQLite, PostgreSQL)
 * on Bun's SQL client. Every state change is one atomic statement, so several replicas can share
 * one PostgreSQL store: a claim takes a lease that only its owner renews, and another replica
 * takes the work over once the lease has expired.
 */
export interface InvestigationStore {
  readonly engine: "sqlite" | "postgres"
  /** Creates or updates the schema (versioned migrations); call once before anything else. */
  migrate(): Promise<void>
  enqueue(alert: AlertInput, options: EnqueueOptions): Promise<EnqueueOutcome>
  /**
   * Atomically takes the oldest queued investigation, or one whose lease expired (its replica
   * died), for `owner` until `leaseMs` from now. Undefined when there is none.
   */
  claim(owner: string, leaseMs: number, now?: number): Promise<Investigation | undefined>
  /** Extends the lease; false when `owner` no longer holds it (another replica took over). */
  renew(id: string, owner: string, leaseMs: number, now?: number): Promise<boolean>
  /** Records the outcome; false when `owner` lost the lease meanwhile (the outcome is dropped). */
  finish(
    id: string,
    owner: string,
    outcome:
      | { status: "done"; result: InvestigationResult }
      | { status: "failed"; error: string; result?: InvestigationResult },
  ): Promise<boolean>
  /** Puts a running investigation back in the queue (a drain ran out of time). */
  release(id: string, owner: string): Promise<boolean>
  /**
   * Puts every running one back (SQLite at start: the file has one process, so they were a
   * crash's). Resolves with their ids.
   */
  requeueAllRunning(): Promise<string[]>
  setDeliveries(id: string, deliveries: Delivery[]): Promise<void>
  /** Done or failed investigations that finished between `since` and `before` (ms), oldest first. */
  finishedBetween(since: number, before: number, limit: number): Promise<Investigation[]>
  get(id: string): Promise<Investigation | undefined>
  list(options: ListOptions): Promise<Investigation[]>
  counts(): Promise<Record<InvestigationStatus, number>>
  close(): Promise<void>
}
