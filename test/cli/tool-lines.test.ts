import { describe, expect, test } from "bun:test"
import { usefulErrorLine } from "../../src/cli/ask/tool-lines.ts"

describe("the useful line of an error", () => {
  test("kubectl's Error from server wins over klog chatter and dupin's status line", () => {
    const text = [
      "Command `kubectl get pod web-1 -n shop` failed with exit code 1.",
      "Output:",
      "I1123 10:00:00.000000   12345 cached_discovery.go:87] skipped caching discovery info",
      'Error from server (NotFound): pods "web-1" not found',
      "W1123 10:00:00.200000   12345 warnings.go:70] v1 ComponentStatus is deprecated",
    ].join("\n")
    expect(usefulErrorLine(text)).toBe('Error from server (NotFound): pods "web-1" not found')
  })

  test("without an error-looking line, the last line that mentions a failure, else the last real line", () => {
    expect(
      usefulErrorLine("Command `x` failed with exit code 2.\nOutput:\nconnecting\nconnection refused"),
    ).toBe("connection refused")
    expect(usefulErrorLine("Command `x` failed with exit code 2.\nOutput:\nfirst\nlast words")).toBe(
      "last words",
    )
    expect(usefulErrorLine("Command timed out after 30 s and was killed.")).toBe(
      "Command timed out after 30 s and was killed.",
    )
  })
})
