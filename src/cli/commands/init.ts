import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import { dirname } from "node:path"
import { createInterface, type Interface } from "node:readline"
import { intOption, noPositionals, type ParsedArgs, stringOption, UsageError } from "../../commands/args.ts"
import { defaultConfigPath } from "../../commands/config-path.ts"
import { EXIT } from "../../commands/exit.ts"
import { writeStderr, writeStdout } from "../../commands/output.ts"
import { processEnv } from "../../config/env.ts"
import {
  COMPATIBLE,
  checkURL,
  choiceFromFlags,
  type InitChoice,
  PROVIDERS,
  providerChoice,
  SERVER_CONTEXT_WINDOW,
} from "../init/choice.ts"
import { starterConfig } from "../init/starter-config.ts"

/** `dupin init`: a commented starter config at the default path (or `--config FILE`). */
export async function initCommand(args: ParsedArgs): Promise<number> {
  noPositionals(args, "init")
  const env = processEnv()
  const path = stringOption(args, "config") ?? (env.SVC_CONFIG_PATH || defaultConfigPath(env))
  if (!path) throw new UsageError("HOME is not set, so there is no default config path: pass --config FILE")
  // Before any question: answering a menu only to be told the file exists wastes the answers.
  if (existsSync(path)) throw alreadyExists(path)
  const flags = choiceFromFlags({
    provider: stringOption(args, "provider"),
    model: stringOption(args, "model"),
    apiBase: stringOption(args, "api-base"),
    apiKeyEnv: stringOption(args, "api-key-env"),
    contextWindow: intOption(args, "context-window", 1024, 10_000_000),
  })
  const interactive = process.stdin.isTTY === true && process.stderr.isTTY === true
  const choice = flags ?? (interactive ? await askChoice() : providerChoice(PROVIDERS[0]!))
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  try {
    // "wx": never replace a config someone already wrote, even one created a moment ago.
    writeFileSync(path, starterConfig(choice), { flag: "wx", mode: 0o600 })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") throw alreadyExists(path)
    throw new UsageError(`cannot write ${path}: ${(error as Error).message}`)
  }
  await writeStdout(nextSteps(path, choice, path === defaultConfigPath(env)))
  return EXIT.ok
}

function alreadyExists(path: string): UsageError {
  return new UsageError(`${path} already exists; edit it, or pass --config FILE to write another`)
}

function nextSteps(path: string, choice: InitChoice, atDefault: boolean): string {
  const where = atDefault ? "" : ` --config ${path}`
  const next: Array<[string, string]> = [
    ...(choice.keyEnv
      ? [[`export ${choice.keyEnv}=...`, "the config reads the key from here"] as [string, string]]
      : []),
    [`dupin toolsets${where}`, "what dupin can look at on this machine"],
    [`dupin ask${where} "why is my pod restarting?"`, "the first question"],
  ]
  const width = Math.max(...next.map(([command]) => command.length))
  const at = choice.apiBase ? ` at ${choice.apiBase}` : ""
  return `${[
    `Wrote ${path} (model ${choice.model}${at}).`,
    "Next:",
    ...next.map(([command, why]) => `  ${command.padEnd(width)}  # ${why}`),
  ].join("\n")}\n`
}

async function askChoice(): Promise<InitChoice> {
  const menu = [
    ...PROVIDERS.map(
      (c, i) => `  ${i + 1}) ${c.provider.padEnd(11)} ${c.model}${c.note ? ` (${c.note})` : ""}`,
    ),
    `  ${PROVIDERS.length + 1}) ${"server".padEnd(11)} an OpenAI-compatible server of your own (vLLM, LiteLLM, llama.cpp, LM Studio)`,
  ].join("\n")
  writeStderr(`Which model provider?\n${menu}\n`)
  const rl = createInterface({ input: process.stdin, output: process.stderr })
  try {
    const count = PROVIDERS.length + 1
    for (;;) {
      const text = (await ask(rl, `Choose 1-${count} [1]: `)).trim().toLowerCase()
      if (text === "") return providerChoice(PROVIDERS[0]!)
      const index = /^\d+$/.test(text) ? Number(text) - 1 : PROVIDERS.findIndex((c) => c.provider === text)
      if (index === PROVIDERS.length || text === COMPATIBLE || text === "server") return await askServer(rl)
      const provider = PROVIDERS[index]
      if (provider) return providerChoice(provider)
      writeStderr(`"${text}" is not one of the choices.\n`)
    }
  } finally {
    rl.close()
  }
}

/** The questions for a server of one's own: URL, model, key variable (optional), context window. */
async function askServer(rl: Interface): Promise<InitChoice> {
  const apiBase = await askUntil(rl, "Server URL (e.g. http://127.0.0.1:8000/v1): ", (v) => {
    checkURL(v, "the URL")
    return v
  })
  const model = await askUntil(rl, "Model name the server serves (e.g. qwen2.5-coder): ", (v) => {
    if (!v) throw new UsageError("a model name is needed")
    return v.includes("/") ? v : `openai/${v}`
  })
  const keyEnv = await askUntil(rl, "Variable holding its key, if it takes one [none]: ", (v) => {
    if (v && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(v)) throw new UsageError("a variable name, e.g. VLLM_API_KEY")
    return v || null
  })
  const contextWindow = await askUntil(rl, `Context window in tokens [${SERVER_CONTEXT_WINDOW}]: `, (v) => {
    const n = v === "" ? SERVER_CONTEXT_WINDOW : Number(v)
    if (!Number.isInteger(n) || n < 1024) throw new UsageError("a whole number of tokens, at least 1024")
    return n
  })
  return { model, keyEnv, apiBase, contextWindow }
}

/** Asks until `parse` accepts the answer; end of input is a usage error. */
async function askUntil<T>(rl: Interface, question: string, parse: (answer: string) => T): Promise<T> {
  for (;;) {
    const answer = (await ask(rl, question)).trim()
    try {
      return parse(answer)
    } catch (error) {
      if (!(error instanceof UsageError)) throw error
      writeStderr(`${error.message}.\n`)
    }
  }
}

function ask(rl: Interface, question: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    rl.question(question, resolve)
    rl.once("close", () => reject(new UsageError("no answer (end of input)")))
  })
}
