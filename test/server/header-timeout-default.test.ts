import { expect, test } from "bun:test"
import { DEFAULT_HEADER_TIMEOUT_S, headerTimeoutFor } from "../../src/server/server.ts"

// Issue 19.4: the header guard is on where other machines can connect; on loopback only when set.
test("unset, the header deadline applies off loopback only; set, it applies everywhere", () => {
  for (const host of ["127.0.0.1", "::1", "[::1]", "localhost", "127.0.0.2"])
    expect(headerTimeoutFor(host, undefined)).toBe(0)
  for (const host of ["0.0.0.0", "::", "10.0.0.5"])
    expect(headerTimeoutFor(host, undefined)).toBe(DEFAULT_HEADER_TIMEOUT_S)
  expect(headerTimeoutFor("127.0.0.1", 10)).toBe(10)
  expect(headerTimeoutFor("0.0.0.0", 0)).toBe(0)
})
