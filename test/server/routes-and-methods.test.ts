/** Small API contract points (issue 12, item 17): method errors and metric labels of refused requests. */
import { afterEach, expect, test } from "bun:test"
import { waitFor } from "../support/wait.ts"
import { type Harness, startHarness } from "./harness.ts"

let h: Harness | undefined
afterEach(async () => {
  await h?.stop()
  h = undefined
})

test("GET /api/chat is 405 with Allow: POST, not 404; an unknown path stays 404", async () => {
  h = await startHarness()
  const res = await fetch(`${h.url}/api/chat`)
  expect(res.status).toBe(405)
  expect(res.headers.get("allow")).toBe("POST")
  const body = (await res.json()) as { detail: string; error_code: number }
  expect(body.detail).toContain("POST")
  expect((await fetch(`${h.url}/healthz`, { method: "POST" })).status).toBe(405)
  expect((await fetch(`${h.url}/no/such/route`)).status).toBe(404)
  expect((await fetch(`${h.url}/healthz`)).status).toBe(200)
})

test("a 401 is counted under its route in metrics, not as unmatched", async () => {
  h = await startHarness({ init: { server: { auth_token: "tok-123456" } } })
  const refused = await h.post({ ask: "hi" })
  expect(refused.status).toBe(401)
  // Counted once the response is sent (onAfterResponse).
  const metrics = h.metrics
  await waitFor(() => metrics.requests.get({ method: "POST", route: "/api/chat", status: "401" }) > 0)
  expect(h.metrics.requests.get({ method: "POST", route: "/api/chat", status: "401" })).toBe(1)
  expect(h.metrics.requests.get({ method: "POST", route: "unmatched", status: "401" })).toBe(0)
  // A path that is no route stays `unmatched`: scanners cannot grow the label set.
  await fetch(`${h.url}/wp-login.php`)
  expect(h.metrics.requests.get({ method: "GET", route: "/wp-login.php", status: "401" })).toBe(0)
})

test("a trailing slash is the same route: /readyz/ is open with auth on, GET /api/chat/ is 405, labels are the route's", async () => {
  h = await startHarness({ init: { server: { auth_token: "tok-123456" } } })
  expect((await fetch(`${h.url}/readyz/`)).status).toBe(200)
  expect((await fetch(`${h.url}/healthz/`)).status).toBe(200)
  expect((await fetch(`${h.url}/api/info/`)).status).toBe(401)
  const wrong = await fetch(`${h.url}/api/chat/`, { headers: { authorization: "Bearer tok-123456" } })
  expect(wrong.status).toBe(405)
  const refused = await fetch(`${h.url}/api/chat/`, { method: "POST", body: "{}" })
  expect(refused.status).toBe(401)
  const metrics = h.metrics
  await waitFor(() => metrics.requests.get({ method: "POST", route: "/api/chat", status: "401" }) > 0)
  expect(metrics.requests.get({ method: "GET", route: "unmatched", status: "401" })).toBe(0)
  expect(metrics.requests.get({ method: "POST", route: "unmatched", status: "401" })).toBe(0)
})
