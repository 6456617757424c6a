/**
 * Alertmanager's webhook body (version 4) read into alerts. Checked by hand, field by field, so a
 * body that is not Alertmanager's gets a 422 naming the field, and unknown fields (a newer
 * Alertmanager) are ignored. Every label and annotation is capped: they reach the prompt and the
 * store, and a runaway template must not make either huge.
 */
import type { FieldError } from "../errors.ts"
import { RequestError } from "../errors.ts"
import { isRecord } from "../is-record.ts"
import type { AlertInput } from "../store/investigation.ts"

/** Characters kept of one label or annotation value. */
export const MAX_VALUE_CHARS = 4096
/** Labels (and, separately, annotations) kept per alert. */
export const MAX_PAIRS = 64
const MAX_NAME_CHARS = 256
/** Alerts read from one body (Alertmanager's `max_alerts` is 0 = unlimited by default). */
export const MAX_ALERTS = 1000

/** The alerts of an Alertmanager webhook body; throws RequestError (422) for any other body. */
export function parseAlertmanagerBody(body: unknown): AlertInput[] {
  const errors: FieldError[] = []
  if (!isRecord(body)) throw notAlertmanager([{ path: "/", message: "must be an object" }])
  if (body.version !== undefined && body.version !== "4") {
    errors.push({
      path: "/version",
      message: `must be "4" (Alertmanager's webhook version), not ${JSON.stringify(body.version)}`,
    })
  }
  if (!Array.isArray(body.alerts)) {
    errors.push({ path: "/alerts", message: "must be an array of alerts" })
    throw notAlertmanager(errors)
  }
  if (body.alerts.length > MAX_ALERTS) {
    errors.push({
      path: "/alerts",
      message: `holds ${body.alerts.length} alerts; at most ${MAX_ALERTS} per body`,
    })
  }
  const externalURL = typeof body.externalURL === "string" ? cap(body.externalURL) : null
  const receiver = typeof body.receiver === "string" ? cap(body.receiver) : null
  const alerts = body.alerts.flatMap((item: unknown, i: number) => {
    const alert = readAlert(item, `/alerts/${i}`, errors)
    return alert ? [{ ...alert, externalURL, receiver }] : []
  })
  if (errors.length > 0) throw notAlertmanager(errors)
  return alerts
}

/**
 * `dupin investigate`'s input: an Alertmanager body (its firing alerts), or one alert object as
 * Alertmanager sends it (labels, annotations, startsAt...).
 */
export function parseAlertFile(value: unknown): AlertInput[] {
  if (isRecord(value) && !Array.isArray(value.alerts) && isRecord(value.labels)) {
    const errors: FieldError[] = []
    // amtool's JSON (API v2) carries `status` as an object ({state: "active"}): one alert given
    // on its own is investigated as firing.
    const status = value.status === "resolved" ? "resolved" : "firing"
    const alert = readAlert({ ...value, status }, "", errors)
    if (!alert || errors.length > 0) throw notAlertmanager(errors)
    return [alert]
  }
  return parseAlertmanagerBody(value).filter((a) => a.status === "firing")
}

function readAlert(item: unknown, at: string, errors: FieldError[]): AlertInput | undefined {
  if (!isRecord(item)) {
    errors.push({ path: at || "/", message: "must be an alert object" })
    return undefined
  }
  const status = item.status
  if (status !== "firing" && status !== "resolved") {
    errors.push({ path: `${at}/status`, message: 'must be "firing" or "resolved"' })
  }
  const labels = readPairs(item.labels, `${at}/labels`, errors, true)
  const annotations = readPairs(item.annotations ?? {}, `${at}/annotations`, errors, false)
  for (const key of ["startsAt", "endsAt", "generatorURL", "fingerprint"] as const) {
    if (item[key] !== undefined && typeof item[key] !== "string") {
      errors.push({ path: `${at}/${key}`, message: "must be a string" })
    }
  }
  if (!labels || !annotations) return undefined
  const fingerprint =
    typeof item.fingerprint === "string" && item.fingerprint
      ? cap(item.fingerprint, MAX_NAME_CHARS)
      : labelFingerprint(labels)
  return {
    fingerprint,
    status: typeof status === "string" ? status : "firing",
    labels,
    annotations,
    startsAt: typeof item.startsAt === "string" ? cap(item.startsAt, 64) : null,
    endsAt: typeof item.endsAt === "string" ? cap(item.endsAt, 64) : null,
    generatorURL: typeof item.generatorURL === "string" ? cap(item.generatorURL) : null,
  }
}

function readPairs(
  value: unknown,
  at: string,
  errors: FieldError[],
  required: boolean,
): Record<string, string> | undefined {
  if (!isRecord(value)) {
    errors.push({
      path: at,
      message: required
        ? "must be an object of label names to string values"
        : "must be an object of strings",
    })
    return undefined
  }
  const out: Record<string, string> = {}
  let kept = 0
  for (const [name, v] of Object.entries(value)) {
    if (typeof v !== "string") {
      errors.push({ path: `${at}/${name.slice(0, MAX_NAME_CHARS)}`, message: "must be a string" })
      continue
    }
    if (kept++ >= MAX_PAIRS) continue
    out[cap(name, MAX_NAME_CHARS)] = cap(v)
  }
  return out
}

/** Alertmanager's fingerprint is a hash of the label set; this stands in when an alert has none. */
function labelFingerprint(labels: Record<string, string>): string {
  const text = Object.keys(labels)
    .sort()
    .map((k) => `${k}\u0000${labels[k]}`)
    .join("\u0001")
  return new Bun.CryptoHasher("sha256").update(text).digest("hex").slice(0, 16)
}

function cap(value: string, max = MAX_VALUE_CHARS): string {
  return value.length > max ? `${value.slice(0, max)}…[truncated ${value.length - max} chars]` : value
}

function notAlertmanager(errors: FieldError[]): RequestError {
  return new RequestError("The body is not an Alertmanager webhook payload (version 4).", {
    kind: "schema",
    errors: errors.slice(0, 20),
  })
}
