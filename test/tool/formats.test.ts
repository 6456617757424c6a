// String formats in class toolsets' config schemas and tool parameters (issue 12 item 3): the
// README's `Type.String({ format: "uri" })` used to leave its toolset `failed` ("Unknown format
// 'uri'"), silently. Common formats now check their values; an unknown one is a load error.
import { describe, expect, test } from "bun:test"
import { Type } from "@sinclair/typebox"
import { Config } from "../../src/core/config.ts"
import { Toolset, ToolsetTag } from "../../src/core/tools.ts"
import { ConfigError } from "../../src/errors.ts"
import { KNOWN_FORMATS } from "../../src/tool/formats.ts"
import { EchoTool } from "../support/tools.ts"

function configToolset(
  name: string,
  schema: ReturnType<typeof Type.Object>,
  config: Record<string, unknown>,
) {
  return new Toolset({ name, description: name, configClasses: [schema], config, tags: [ToolsetTag.CORE] })
}

async function statusOf(toolset: Toolset): Promise<{ status: string; error?: string }> {
  const config = new Config({
    model: "openai/gpt-4.1-mini",
    apiKey: "sk-test",
    additionalToolsets: [toolset],
  })
  await config.createConsoleToolCallingLLM().toolExecutor.ensureReady()
  return { status: String(toolset.status), error: toolset.error }
}

const VALID: Record<string, string> = {
  uri: "https://status.example.com/api",
  url: "http://10.0.0.5:8080/status",
  email: "oncall@example.com",
  hostname: "db-1.internal.example.com",
  ipv4: "192.0.2.10",
  ipv6: "2001:db8::1",
  "date-time": "2026-11-23T21:00:00Z",
  date: "2026-11-23",
  time: "21:00:00Z",
  uuid: "0b7f1c36-2f7e-4a53-9d2c-0c8f1f3c2a11",
}
const INVALID: Record<string, string> = {
  uri: "not a uri",
  url: "status.example.com",
  email: "oncall",
  hostname: "bad_host!",
  ipv4: "300.1.1.1",
  ipv6: "2001:db8:::1::",
  "date-time": "yesterday",
  date: "2026-02-30",
  time: "25:00:00Z",
  uuid: "1234",
}

describe("string formats in toolset config schemas", () => {
  test("the common formats are known", () => {
    for (const name of Object.keys(VALID)) expect(KNOWN_FORMATS).toContain(name)
  })

  for (const [format, value] of Object.entries(VALID)) {
    test(`a valid ${format} value leaves the toolset enabled`, async () => {
      const toolset = configToolset(`fmt-${format}`, Type.Object({ v: Type.String({ format }) }), {
        v: value,
      })
      expect(await statusOf(toolset)).toEqual({ status: "enabled", error: undefined })
    })
  }

  for (const [format, value] of Object.entries(INVALID)) {
    test(`an invalid ${format} value fails the toolset naming the key`, async () => {
      const toolset = configToolset(`fmt-${format}`, Type.Object({ v: Type.String({ format }) }), {
        v: value,
      })
      const { status, error } = await statusOf(toolset)
      expect(status).toBe("failed")
      expect(error).toContain("/v")
      expect(error).toContain(format)
      expect(error).not.toContain("Unknown format")
    })
  }

  test("an unknown format in a config schema is a load error naming the toolset and the format", () => {
    const toolset = configToolset("statuspage", Type.Object({ url: Type.String({ format: "urx" }) }), {
      url: "https://status.example.com",
    })
    const config = new Config({
      model: "openai/gpt-4.1-mini",
      apiKey: "sk-test",
      additionalToolsets: [toolset],
    })
    let error: unknown
    try {
      config.createConsoleToolCallingLLM()
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(ConfigError)
    expect(String((error as Error).message)).toContain("toolset statuspage")
    expect(String((error as Error).message)).toContain("'urx' at /properties/url")
    expect(String((error as Error).message)).toContain("Known formats: ")
  })

  test("an unknown format in a tool's parameters is a load error naming the tool", () => {
    class FormattedTool extends EchoTool {
      override inputSchema() {
        return Type.Object({ when: Type.String({ format: "someday" }) })
      }
    }
    const toolset = new Toolset({ name: "calendar", description: "c", tools: [new FormattedTool()] })
    const config = new Config({
      model: "openai/gpt-4.1-mini",
      apiKey: "sk-test",
      additionalToolsets: [toolset],
    })
    expect(() => config.createConsoleToolCallingLLM()).toThrow(
      /toolset calendar: tool echo: parameters.*'someday'/,
    )
  })

  test("OpenAPI's number formats (int64, double) only annotate: the toolset loads and its tool checks", async () => {
    class CountTool extends EchoTool {
      override inputSchema() {
        return Type.Object({
          limit: Type.Integer({ format: "int64" }),
          ratio: Type.Number({ format: "double" }),
        })
      }
    }
    const tool = new CountTool()
    const toolset = new Toolset({ name: "generated", description: "g", tools: [tool] })
    const config = new Config({
      model: "openai/gpt-4.1-mini",
      apiKey: "sk-test",
      additionalToolsets: [toolset],
    })
    await config.createConsoleToolCallingLLM().toolExecutor.ensureReady()
    expect(toolset.status).toBe("enabled")
    expect(tool.validate({ limit: 5, ratio: 0.5 }).ok).toBe(true)
    expect(tool.validate({ limit: "5", ratio: 0.5 }).ok).toBe(false)
  })

  test("a tool parameter with a format checks the model's value", () => {
    class MailTool extends EchoTool {
      override inputSchema() {
        return Type.Object({ to: Type.String({ format: "email" }) })
      }
    }
    const tool = new MailTool()
    expect(tool.validate({ to: "oncall@example.com" }).ok).toBe(true)
    const bad = tool.validate({ to: "not-an-address" })
    expect(bad.ok).toBe(false)
    expect(bad.ok ? "" : bad.error).toContain("email")
  })
})
