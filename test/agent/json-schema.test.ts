import { describe, expect, test } from "bun:test"
import { compileJsonSchema, SchemaProblem } from "../../src/agent/json-schema.ts"

const valid = (schema: unknown, value: unknown) => compileJsonSchema(schema).validate(value)

describe("compileJsonSchema: validation", () => {
  test("type, including a list of types and integer vs number", () => {
    expect(valid({ type: "string" }, "a")).toBeUndefined()
    expect(valid({ type: "string" }, 1)).toBe("the answer: expected string, got integer")
    expect(valid({ type: ["string", "null"] }, null)).toBeUndefined()
    expect(valid({ type: "integer" }, 1.5)).toContain("expected integer, got number")
    expect(valid({ type: "number" }, 2)).toBeUndefined()
    expect(valid({ type: "object" }, [])).toContain("got array")
    expect(valid({ type: "array" }, {})).toContain("got object")
    expect(valid({ type: "boolean" }, "true")).toContain("got string")
  })

  test("properties, required and additionalProperties, with JSON-pointer paths", () => {
    const schema = {
      type: "object",
      properties: { name: { type: "string" }, "a/b": { type: "integer" } },
      required: ["name"],
      additionalProperties: false,
    }
    expect(valid(schema, { name: "x" })).toBeUndefined()
    expect(valid(schema, {})).toBe('the answer: missing required property "name"')
    expect(valid(schema, { name: "x", extra: 1 })).toBe('the answer: property "extra" is not allowed')
    expect(valid(schema, { name: "x", "a/b": "1" })).toBe("/a~1b: expected integer, got string")
    expect(valid({ type: "object", additionalProperties: { type: "number" } }, { a: 1, b: "2" })).toBe(
      "/b: expected number, got string",
    )
  })

  test("items, enum, const, anyOf, nullable", () => {
    expect(valid({ type: "array", items: { type: "string" } }, ["a", 2])).toBe(
      "/1: expected string, got integer",
    )
    expect(valid({ enum: ["low", "high"] }, "mid")).toBe('the answer: must be one of "low", "high"')
    expect(valid({ enum: [{ a: 1 }] }, { a: 1 })).toBeUndefined()
    expect(valid({ const: "v1" }, "v2")).toBe('the answer: must be "v1"')
    const either = { anyOf: [{ type: "string" }, { type: "integer" }] }
    expect(valid(either, 3)).toBeUndefined()
    expect(valid(either, true)).toContain("matches none of the allowed forms")
    expect(valid({ type: "string", nullable: true }, null)).toBeUndefined()
    expect(valid({ type: "string" }, null)).toContain("got null")
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
      "/children/0/children/0: expected object, got integer",
    )
    expect(
      valid(
        { definitions: { s: { type: "string" } }, properties: { a: { $ref: "#/definitions/s" } } },
        { a: 1 },
      ),
    ).toBe("/a: expected string, got integer")
  })

  test("string, number and array bounds", () => {
    expect(valid({ type: "string", pattern: "^[a-z]+$" }, "abc1")).toContain("does not match the pattern")
    expect(valid({ type: "string", minLength: 2 }, "é")).toContain("shorter than 2")
    expect(valid({ type: "string", maxLength: 1 }, "é")).toBeUndefined()
    expect(valid({ type: "number", minimum: 0, maximum: 1 }, 1.5)).toContain("greater than 1")
    expect(valid({ type: "number", exclusiveMinimum: 0 }, 0)).toContain("not greater than 0")
    expect(valid({ type: "number", multipleOf: 0.1 }, 0.3)).toBeUndefined()
    expect(valid({ type: "array", minItems: 1 }, [])).toContain("fewer than 1")
    expect(valid({ type: "array", maxItems: 1 }, [1, 2])).toContain("more than 1")
  })

  test("boolean schemas and annotations", () => {
    expect(valid({ properties: { a: false } }, { a: 1 })).toBe("/a: no value is allowed here")
    expect(valid({ properties: { a: true } }, { a: 1 })).toBeUndefined()
    expect(
      valid({ type: "string", title: "T", description: "D", default: "x", format: "date-time" }, "x"),
    ).toBeUndefined()
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

  test("a self-reference without structure does not loop for ever", () => {
    expect(valid({ $ref: "#" }, 1)).toContain("nested too deeply")
  })
})
