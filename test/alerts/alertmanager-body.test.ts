import { expect, test } from "bun:test"
import {
  MAX_PAIRS,
  MAX_VALUE_CHARS,
  parseAlertFile,
  parseAlertmanagerBody,
} from "../../src/alerts/alertmanager.ts"
import { RequestError } from "../../src/errors.ts"
import { alertmanagerBody } from "./support.ts"

test("an Alertmanager body reads into alerts; values and label counts are capped", () => {
  const labels = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`l${i}`, "v".repeat(10_000)]))
  const [alert] = parseAlertmanagerBody(alertmanagerBody([{ labels }]))
  expect(Object.keys(alert!.labels)).toHaveLength(MAX_PAIRS)
  expect(alert!.labels.l0!.startsWith("v".repeat(MAX_VALUE_CHARS))).toBe(true)
  expect(alert!.labels.l0).toContain("[truncated 5904 chars]")
  expect(alert!.externalURL).toBe("http://alertmanager:9093")
})

test("wrong shapes are a RequestError (422) naming each field", () => {
  const body = { alerts: [{ status: "firing", labels: { a: 1 }, startsAt: 5 }] }
  try {
    parseAlertmanagerBody(body)
    throw new Error("accepted")
  } catch (error) {
    expect(error).toBeInstanceOf(RequestError)
    const e = error as RequestError
    expect(e.status).toBe(422)
    expect(e.errors?.map((x) => x.path)).toEqual(["/alerts/0/labels/a", "/alerts/0/startsAt"])
  }
  expect(() => parseAlertmanagerBody([])).toThrow(RequestError)
  expect(() => parseAlertmanagerBody({ alerts: Array.from({ length: 1001 }, () => ({})) })).toThrow(
    RequestError,
  )
})

test("dupin investigate's input: a body's firing alerts, or one alert as amtool prints it", () => {
  const body = alertmanagerBody([{ fingerprint: "a" }, { fingerprint: "b", status: "resolved" }])
  expect(parseAlertFile(body).map((a) => a.fingerprint)).toEqual(["a"])
  const amtool = {
    labels: { alertname: "X", job: "api" },
    annotations: {},
    status: { state: "active", silencedBy: [], inhibitedBy: [] },
    startsAt: "2026-11-26T10:00:00Z",
  }
  const [one] = parseAlertFile(amtool)
  expect(one?.status).toBe("firing")
  // Without a fingerprint, one is made from the label set: the same labels, the same fingerprint.
  expect(one?.fingerprint).toMatch(/^[0-9a-f]{16}$/)
  expect(parseAlertFile({ ...amtool, labels: { job: "api", alertname: "X" } })[0]?.fingerprint).toBe(
    one?.fingerprint,
  )
})
