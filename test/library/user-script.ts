// A user's program, run from a separate project that depends on dupin. It follows the spec's
// library flow: config, LLM object, initial messages, call, follow-up on result.messages.
import { Type } from "@sinclair/typebox"
import { Config } from "dupin/config"
import { buildInitialAskMessages } from "dupin/core/prompt"
import {
  CallablePrerequisite,
  StructuredToolResult,
  Tool,
  ToolParameter,
  ToolResultStatus,
  Toolset,
  ToolsetTag,
} from "dupin/core/tools"

class InventoryTool extends Tool {
  constructor(toolset: Toolset) {
    super({
      name: "inventory_lookup",
      description: "Look up a host in the inventory",
      parameters: { host: new ToolParameter({ type: "string", description: "host name" }) },
    })
    this._toolset = toolset
  }
  protected async invoke(params: Record<string, unknown>): Promise<StructuredToolResult> {
    const site = String(this.toolset?.config.site)
    return new StructuredToolResult({
      status: ToolResultStatus.SUCCESS,
      data: `${params.host} is in ${site}`,
      params,
    })
  }
  override getParameterizedOneLiner(params: Record<string, unknown>): string {
    return `inventory ${params.host}`
  }
}

const inventory = new Toolset({
  name: "inventory",
  description: "Host inventory",
  enabled: true,
  configClasses: [Type.Object({ site: Type.String() })],
  config: { site: "eu-west" },
  prerequisites: [
    new CallablePrerequisite({ callable: async (config) => [config.site !== "", "site missing"] }),
  ],
  tags: [ToolsetTag.CORE],
})
inventory.tools.push(new InventoryTool(inventory))

const config = new Config({
  model: "openai/gpt-4o",
  apiKey: "test-key",
  apiBase: process.env.FAKE_URL,
  maxSteps: 10,
  customToolsets: [process.env.YAML_TOOLSET!],
  additionalToolsets: [inventory],
})
const ai = config.createConsoleToolCallingLLM()
const messages = await buildInitialAskMessages({
  initialUserPrompt: "Where is web-1 and what does the greeter say?",
  toolExecutor: ai.toolExecutor,
  runbooks: config.getRunbookCatalog(),
  systemPromptAdditions: "Answer in one line.",
})
const first = await ai.call(messages)
first.messages!.push({ role: "user", content: "Thanks. Anything else?" })
const second = await ai.call(first.messages!)

console.log(
  JSON.stringify({
    toolsets: ai.toolExecutor.toolsets.map((t) => ({ name: t.name, enabled: t.enabled, status: t.status })),
    tools: Object.keys(ai.toolExecutor.toolsByName),
    first: {
      result: first.result,
      numLlmCalls: first.numLlmCalls,
      totalTokens: first.totalTokens,
      toolCalls: first.toolCalls?.map((c) => ({
        name: c.toolName,
        description: c.description,
        status: c.result.status,
        data: c.result.data,
      })),
    },
    second: { result: second.result, messages: second.messages?.length },
  }),
)
