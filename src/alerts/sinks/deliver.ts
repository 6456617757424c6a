import { sleepUnlessAborted } from "../../abort.ts"
/**
 * Delivering a finished investigation to every sink: each on its own, with a per-attempt timeout
 * and exponential backoff between attempts, every attempt recorded in `deliveries`. Deliveries run
 * beside the queue, never in its slots, so a sink that hangs or fails holds nothing up.
 */
import { ConfigError, errorMessage } from "../../errors.ts"
import { log } from "../../log.ts"
import type { Delivery, Investigation } from "../../store/investigation.ts"
import type { Sink } from "./sink.ts"

export type DeliveryPolicy = {
  attempts: number
  /** First wait between attempts; doubled each time. */
  backoffMs: number
  /** One attempt's limit: a sink that accepts the connection and never answers. */
  timeoutMs: number
}

/** Whether a finished investigation still has deliveries to make (a restart cut them short). */
export function undelivered(
  investigation: Investigation,
  sinks: readonly Sink[],
  policy: DeliveryPolicy,
): boolean {
  return sinks.some((sink) => {
    const delivery = investigation.deliveries.find((d) => d.sink === sink.name)
    return !delivery || (!delivery.ok && delivery.attempts < policy.attempts)
  })
}

export const DEFAULT_DELIVERY_POLICY: DeliveryPolicy = { attempts: 5, backoffMs: 2_000, timeoutMs: 10_000 }

export async function deliver(
  investigation: Investigation,
  sinks: readonly Sink[],
  policy: DeliveryPolicy,
  record: (deliveries: Delivery[]) => Promise<void>,
  onAttempt: (sink: Sink, ok: boolean) => void,
  signal: AbortSignal,
): Promise<void> {
  // Resumed after a restart: the attempts already recorded count, and a delivered sink is done.
  const deliveries: Delivery[] = sinks.map(
    (sink) =>
      investigation.deliveries.find((d) => d.sink === sink.name) ?? {
        sink: sink.name,
        ok: false,
        attempts: 0,
        last_status: null,
        last_error: null,
        delivered_at: null,
      },
  )
  // Records are written one at a time, in order, so a slow write never overwrites a newer one.
  let writes = Promise.resolve()
  const save = () => {
    const snapshot = deliveries.map((d) => ({ ...d }))
    writes = writes
      .then(() => record(snapshot))
      .catch((error: unknown) => {
        log.warn("could not record a delivery", { id: investigation.id, error: errorMessage(error) })
      })
  }
  await Promise.all(
    sinks.map(async (sink, i) => {
      const delivery = deliveries[i] as Delivery
      if (delivery.ok) return
      for (let attempt = delivery.attempts + 1; attempt <= policy.attempts && !signal.aborted; attempt++) {
        delivery.attempts = attempt
        // A sink whose `{{ env.X }}` is unset fails the same way until dupin restarts with X set
        // (its environment does not change while it runs): one attempt, not five.
        let hopeless = false
        try {
          const status = await sink.send(
            investigation,
            AbortSignal.any([signal, AbortSignal.timeout(policy.timeoutMs)]),
          )
          delivery.last_status = status
          delivery.ok = status >= 200 && status < 300
          delivery.last_error = delivery.ok ? null : `HTTP ${status}`
        } catch (error) {
          delivery.last_status = null
          delivery.last_error = errorMessage(error)
          hopeless = error instanceof ConfigError
        }
        if (delivery.ok) delivery.delivered_at = new Date().toISOString()
        onAttempt(sink, delivery.ok)
        save()
        if (delivery.ok) {
          log.info("investigation delivered", { id: investigation.id, sink: sink.name, attempts: attempt })
          return
        }
        log.warn("delivery failed", {
          id: investigation.id,
          sink: sink.name,
          attempt,
          error: delivery.last_error,
        })
        if (hopeless) return
        if (attempt < policy.attempts) await sleepUnlessAborted(policy.backoffMs * 2 ** (attempt - 1), signal)
      }
    }),
  )
  await writes
}
