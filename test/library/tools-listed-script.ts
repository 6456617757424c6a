// A user's program, run from a separate project that depends on dupin: it lists the tools as soon
// as it has the LLM object, asks one question, then lists them again.
import { Config } from "dupin/config"
import { buildInitialAskMessages } from "dupin/core/prompt"

const config = new Config({
  model: "openai/gpt-4o",
  apiKey: "test-key",
  apiBase: process.env.FAKE_URL,
  customToolsets: [process.env.YAML_TOOLSET!],
})
const ai = config.createConsoleToolCallingLLM()
const before = Object.keys(ai.toolExecutor.toolsByName)
const messages = await buildInitialAskMessages({
  initialUserPrompt: "Anything wrong?",
  toolExecutor: ai.toolExecutor,
})
const result = await ai.call(messages)
const after = Object.keys(ai.toolExecutor.toolsByName)
const status = Object.fromEntries(ai.toolExecutor.toolsets.map((t) => [t.name, t.status]))
console.log(JSON.stringify({ before, after, status, answer: result.result }))
