import { expect, test } from "bun:test"
import { RequestError } from "../../src/errors.ts"
import { toImageParts } from "../../src/server/images.ts"

const limits = { maxImages: 3, maxImageBytes: 10 }

test("strings and objects become image_url parts; only inline bytes count toward the byte limit", () => {
  // "AAAAAAAAAAAA" is 12 base64 chars = 9 bytes; "AAAAAA==" is 4 bytes.
  expect(
    toImageParts(
      [
        "https://x.test/a.png",
        { url: "data:image/png;base64,AAAAAAAAAAAA", detail: "high", format: "image/png" },
      ],
      limits,
    ),
  ).toEqual([
    { type: "image_url", image_url: { url: "https://x.test/a.png" } },
    {
      type: "image_url",
      image_url: { url: "data:image/png;base64,AAAAAAAAAAAA", detail: "high", format: "image/png" },
    },
  ])
  expect(() =>
    toImageParts(["data:image/png;base64,AAAAAAAAAAAA", "data:image/png;base64,AAAAAA=="], limits),
  ).toThrow(/total 13 bytes; at most 10/)
})

test("refusals are 400 RequestErrors with the element named", () => {
  const cases: Array<[string | { url: string; format?: string }, RegExp]> = [
    ["data:image/png;base64,AAA", /images\[0\] is a data URI whose data is not valid base64/],
    ["data:image/png;base64,", /not valid base64/],
    ["data:image/png;charset=x,AAAA", /not base64-encoded/],
    ["data:,AAAA", /without a MIME type/],
    ["ftp://x.test/a.png", /only http\(s\) URLs/],
    ["not a url", /neither a URL nor a data URI/],
    [{ url: "https://x.test/a", format: "png" }, /format must be a MIME type/],
  ]
  for (const [image, message] of cases) {
    let caught: unknown
    try {
      toImageParts([image], limits)
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(RequestError)
    expect((caught as RequestError).status).toBe(400)
    expect((caught as RequestError).message).toMatch(message)
  }
})
