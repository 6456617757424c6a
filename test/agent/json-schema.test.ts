import { describe, expect, test } from "bun:test"
import { compileJsonSchema, SchemaProblem } from "../../src/json-schema.ts"

const valid = (schema: unknown, value: unknown) => compileJsonSchema(schema).validate(value)

describe("compileJsonSchema: validation", () => {
  test("type, including a list of types and integer vs number", () => {
    expect(valid({ type: "string" }, "a")).toBeUndefined()
    expect(valid({ type: "string" }, 1)).toBe(
      'the answer: Instance type "number" is invalid. Expected "string"',
    )
    expect(valid({ type: ["string", "null"] }, null)).toBeUndefined()
    expect(valid({ type: "integer" }, 1.5)).toContain('Expected "integer"')
    expect(valid({ type: "number" }, 2)).toBeUndefined()
    expect(valid({ type: "object" }, [])).toContain('type "array" is invalid')
    expect(valid({ type: "array" }, {})).toContain('type "object" is invalid')
    expect(valid({ type: "boolean" }, "true")).toContain('type "string" is invalid')
  })

  test("properties, required and additionalProperties, with JSON-pointer paths", () => {
    const schema = {
      type: "object",
      properties: { name: { type: "string" }, "a/b": { type: "integer" } },
      required: ["name"],
      additionalProperties: false,
    }
    expect(valid(schema, { name: "x" })).toBeUndefined()
    expect(valid(schema, {})).toBe('the answer: Instance does not have required property "name"')
    expect(valid(schema, { name: "x", extra: 1 })).toBe("/extra: no value is allowed here")
    expect(valid(schema, { name: "x", "a/b": "1" })).toBe(
      '/a~1b: Instance type "string" is invalid. Expected "integer"',
    )
    expect(valid({ type: "object", additionalProperties: { type: "number" } }, { a: 1, b: "2" })).toBe(
      '/b: Instance type "string" is invalid. Expected "number"',
    )
  })

  test("items, enum, const, anyOf, nullable", () => {
    expect(valid({ type: "array", items: { type: "string" } }, ["a", 2])).toBe(
      '/1: Instance type "number" is invalid. Expected "string"',
    )
    expect(valid({ enum: ["low", "high"] }, "mid")).toBe(
      'the answer: Instance does not match any of ["low","high"]',
    )
    expect(valid({ enum: [{ a: 1 }] }, { a: 1 })).toBeUndefined()
    expect(valid({ const: "v1" }, "v2")).toContain('the answer: Instance does not match "v1"')
    const either = { anyOf: [{ type: "string" }, { type: "integer" }] }
    expect(valid(either, 3)).toBeUndefined()
    expect(valid(either, true)).toContain("matches none of the allowed forms")
    expect(valid({ type: "string", nullable: true }, null)).toBeUndefined()
    expect(valid({ enum: ["a"], nullable: true }, null)).toBeUndefined()
    expect(valid({ const: "a", nullable: true }, null)).toBeUndefined()
    expect(valid({ const: "a", nullable: true }, "b")).toContain("does not match")
    const ref = { $defs: { s: { type: "string" } }, properties: { a: { $ref: "#/$defs/s", nullable: true } } }
    expect(valid(ref, { a: null })).toBeUndefined()
    expect(valid(ref, { a: 1 })).toContain("/a: ")
    expect(valid({ type: "string" }, null)).toContain('type "null" is invalid')
  })

  test("$ref into $defs and definitions, including a recursive schema", () => {
    const tree = {
      $defs: {
        node: {
          type: "object",
          properties: { children: { type: "array", items: { $ref: "#/$defs/node" } } },
        },
      },
      $ref: "#/$defs/node",
    }
    expect(valid(tree, { children: [{ children: [] }] })).toBeUndefined()
    expect(valid(tree, { children: [{ children: [1] }] })).toBe(
      '/children/0/children/0: Instance type "number" is invalid. Expected "object"',
    )
    expect(
      valid(
        { definitions: { s: { type: "string" } }, properties: { a: { $ref: "#/definitions/s" } } },
        { a: 1 },
      ),
    ).toBe('/a: Instance type "number" is invalid. Expected "string"')
  })

  test("string, number and array bounds", () => {
    expect(valid({ type: "string", pattern: "^[a-z]+$" }, "abc1")).toBe(
      "the answer: does not match the pattern ^[a-z]+$",
    )
    expect(valid({ type: "string", minLength: 2 }, "é")).toContain("too short (1 < 2)")
    expect(valid({ type: "string", maxLength: 1 }, "é")).toBeUndefined()
    expect(valid({ type: "number", minimum: 0, maximum: 1 }, 1.5)).toContain("greater than 1")
    expect(valid({ type: "number", exclusiveMinimum: 0 }, 0)).toBe("the answer: must be greater than 0")
    expect(valid({ type: "number", multipleOf: 0.1 }, 0.3)).toBeUndefined()
    expect(valid({ type: "array", minItems: 1 }, [])).toContain("1")
    expect(valid({ type: "array", maxItems: 1 }, [1, 2])).toContain("1")
  })

  test("boolean schemas and annotations", () => {
    expect(valid({ properties: { a: false } }, { a: 1 })).toBe("/a: no value is allowed here")
    expect(valid({ properties: { a: true } }, { a: 1 })).toBeUndefined()
    expect(
      valid({ type: "string", title: "T", description: "D", default: "x", format: "x-custom" }, "x"),
    ).toBeUndefined()
    // A format the validator knows is checked.
    expect(valid({ type: "string", format: "date-time" }, "2026-11-23T21:00:00Z")).toBeUndefined()
    expect(valid({ type: "string", format: "date-time" }, "x")).toBe(
      'the answer: is not a valid "date-time", e.g. 2026-01-31T13:45:00Z (RFC 3339: T between date and time, and Z or an offset)',
    )
  })

  test("a format's correction shows the model the form it wants (time needs an offset)", () => {
    expect(valid({ properties: { at: { type: "string", format: "time" } } }, { at: "12:00:00" })).toBe(
      '/at: is not a valid "time", e.g. 13:45:00Z (with Z or an offset such as +02:00)',
    )
    expect(valid({ type: "string", format: "time" }, "12:00:00+02:00")).toBeUndefined()
    // A format the validator does not know only annotates.
    expect(valid({ type: "string", format: "x-custom" }, "anything")).toBeUndefined()
  })

  test("an $id inside the schema does not move where $ref points: the answer is checked, not a throw", () => {
    const schema = {
      type: "object",
      properties: { a: { $id: "item", type: "object", properties: { b: { $ref: "#/$defs/B" } } } },
      $defs: { B: { type: "string" } },
    }
    expect(valid(schema, { a: { b: "ok" } })).toBeUndefined()
    expect(valid(schema, { a: { b: 1 } })).toContain("/a/b:")
    expect(valid({ $id: "https://example.com/s.json", ...schema }, { a: { b: "ok" } })).toBeUndefined()
  })
})

describe("compileJsonSchema: unusable schemas are refused", () => {
  const cases: Array<[unknown, RegExp]> = [
    ["string", /must be a JSON object/],
    [{ type: "strng" }, /\/type: type must be one of/],
    [{ type: [] }, /\/type/],
    [{ oneOf: [{ type: "string" }] }, /keyword "oneOf" is not supported/],
    [{ properties: { a: { allOf: [] } } }, /\/properties\/a: the keyword "allOf"/],
    [{ properties: [] }, /properties must be an object/],
    [{ required: "a" }, /required must be a list/],
    [{ items: [{ type: "string" }] }, /tuple items are not supported/],
    [{ enum: [] }, /enum must be a non-empty list/],
    [{ anyOf: [] }, /anyOf must be a non-empty list/],
    [{ $ref: "#/$defs/missing" }, /does not point inside this schema/],
    [{ $ref: "https://example.com/schema.json" }, /does not point inside this schema/],
    [{ pattern: "(" }, /not a valid regular expression/],
    [{ minLength: -1 }, /non-negative integer/],
    [{ multipleOf: 0 }, /greater than 0/],
    [{ nullable: "yes" }, /nullable must be a boolean/],
  ]
  for (const [schema, message] of cases) {
    test(JSON.stringify(schema), () => {
      expect(() => compileJsonSchema(schema)).toThrow(SchemaProblem)
      expect(() => compileJsonSchema(schema)).toThrow(message)
    })
  }

  test("a refusal never echoes a caller's huge keyword, property name or $ref whole", () => {
    const big = "k".repeat(100_000)
    for (const schema of [
      { [big]: 1 },
      { properties: { [big]: { type: "strng" } } },
      { properties: { a: { $ref: `#/$defs/${big}` } } },
    ]) {
      let message = ""
      try {
        compileJsonSchema(schema)
      } catch (error) {
        expect(error).toBeInstanceOf(SchemaProblem)
        message = (error as Error).message
      }
      expect(message).toContain("…")
      expect(message.length).toBeLessThan(400)
    }
  })

  test("a self-reference without structure does not loop for ever", () => {
    expect(valid({ $ref: "#" }, 1)).toContain("nested too deeply")
  })
})
