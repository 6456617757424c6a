/**
 * Small-window runs through the real engine: the built-in toolsets, enabled for real by fake
 * `kubectl`, `helm` and `docker` executables on PATH (shell scripts: `kubectl logs` prints a long
 * log, everything else a line), and a model whose window is set in `modelList`, against the fake
 * OpenAI-compatible provider.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Config, type ConfigInit } from "../../src/core/config.ts"
import { TokenCounter } from "../../src/llm/tokens.ts"
import type { ChatMessage, ToolSchema } from "../../src/llm/types.ts"
import type { FakeProvider, RecordedRequest } from "../support/fake-provider.ts"

/** An id the catalog does not know: its output limit is the unknown-model default (4096). */
export const SMALL_MODEL = "openai/local-8b-instruct-q4"

const KUBECTL = `#!/bin/sh
case "$1" in
  version) echo "Client Version: v1.31.0" ;;
  logs) i=1; while [ $i -le 3000 ]; do echo "2026-11-23T10:00:00Z line $i: GET /api/orders 200 in 12ms from 10.0.0.$((i % 250))"; i=$((i+1)); done
        echo "2026-11-23T10:05:00Z FATAL: connection refused to postgres:5432" ;;
  *) echo "NAME READY STATUS RESTARTS"; echo "api-7d9 0/1 CrashLoopBackOff 12" ;;
esac
`

export type SmallWindow = {
  /** The PATH directory with the fake executables. */
  bin: string
  env: Record<string, string>
  cleanup(): void
}

export function fakeClusterTools(): SmallWindow {
  const bin = mkdtempSync(join(tmpdir(), "dupin-small-window-"))
  mkdirSync(bin, { recursive: true })
  const write = (name: string, text: string) => {
    writeFileSync(join(bin, name), text)
    chmodSync(join(bin, name), 0o755)
  }
  write("kubectl", KUBECTL)
  write("helm", '#!/bin/sh\necho "v3.16.0"\n')
  write("docker", '#!/bin/sh\necho "Docker version 27.0.0"\n')
  return {
    bin,
    env: { PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}`, HOME: bin },
    cleanup: () => rmSync(bin, { recursive: true, force: true }),
  }
}

/** A library Config for the small model with `window` tokens, over the fake provider. */
export function smallConfig(
  fake: FakeProvider,
  tools: SmallWindow,
  window: number,
  env: Record<string, string> = {},
  init: Omit<ConfigInit, "env" | "model" | "modelList"> = {},
): Config {
  return new Config({
    model: "small",
    modelList: {
      small: { model: SMALL_MODEL, api_key: "test", api_base: fake.url, context_window: window },
    },
    env: { ...tools.env, ...env },
    ...init,
  })
}

export const completions = (fake: FakeProvider): RecordedRequest[] =>
  fake.requests.filter((r) => r.path.endsWith("/chat/completions"))

export const toolNames = (request: RecordedRequest): string[] =>
  ((request.body?.tools as ToolSchema[] | undefined) ?? []).map((t) => t.function.name)

/** Tokens of a request as sent (messages and tool definitions), counted as dupin counts them. */
export async function requestTokens(
  request: RecordedRequest,
  model = SMALL_MODEL,
): Promise<{ total: number; tools: number }> {
  const counter = await TokenCounter.forModel(model)
  const messages = (request.body?.messages ?? []) as ChatMessage[]
  const tools = (request.body?.tools ?? []) as ToolSchema[]
  const tally = counter.tally(messages, tools)
  return { total: tally.total_tokens, tools: tally.tools_tokens }
}
