import { expect, test } from "bun:test"
import { startServerProcess, waitForOk } from "./test/bench/support/processes.ts"
import { writeServeConfig } from "./test/bench/support/server-config.ts"
import { type RecordedRequest, startFakeProvider } from "./test/support/fake-provider.ts"

const TOOLSETS = `toolsets:
  dos/redaction:
    description: Outputs shaped for the redactor
    tools:
      - name: secrets_yaml
        description: Prints 10 MB of Secret manifests
        command: "awk 'BEGIN { for (i = 0; i < 400000; i++) printf \\"kind: Secret\\\\ndata:\\\\n  a: v%d\\\\n\\", i }' {{ n }}"
        parameters:
          n: { type: string }
`
test("prof", async () => {
  const fake = await startFakeProvider()
  const which = process.env.WHICH ?? "r11"
  const step = (request: RecordedRequest) => {
    fake.script(step)
    const messages = (request.body?.messages ?? []) as Array<Record<string, unknown>>
    const last = messages.at(-1)
    if (which === "r11" && last?.role === "user" && String(last.content).includes("secrets"))
      return { toolCalls: Array.from({ length: 8 }, (_, i) => ({ id: `c${i}`, name: "secrets_yaml", arguments: { n: `/dev/null${"/".repeat(i)}` } })) }
    return { content: "Done." }
  }
  fake.script(step)
  const { configPath } = writeServeConfig(fake.url, TOOLSETS)
  const server = await startServerProcess(["bun", "--cpu-prof-md", "--cpu-prof-dir=/tmp/evl-prof2", "src/main.ts", "serve", "--config", configPath, "--port", "0"])
  await waitForOk(`${server.url}/readyz`)
  await Bun.sleep(3000)
  const post = async (body: unknown) => {
    const r = await fetch(`${server.url}/api/chat`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
    const t = await r.text(); console.log(r.status, t.slice(0, 200))
  }
  await post({ ask: "hello", stream: false })
  const t0 = performance.now()
  if (which === "r11") await post({ ask: "secrets", stream: false })
  if (which === "r2") {
    const history: Array<Record<string, string>> = [{ role: "system", content: "You are dupin." }]
    const letters = "abcdefghijklmnopqrstuvwxyz"
    let bytes = 0
    while (bytes < 18_000_000) {
      const words: string[] = []
      for (let i = 0; i < 50; i++) { let w = ""; for (let n = 3 + Math.floor(Math.random() * 7); n > 0; n--) w += letters[Math.floor(Math.random() * 26)]; words.push(w) }
      const content = words.join(" "); bytes += content.length + 40
      history.push({ role: history.length % 2 === 1 ? "user" : "assistant", content })
    }
    await post({ ask: "and now?", conversation_history: history, stream: false })
  }
  console.log("chat ms", performance.now() - t0)
  console.log("exit", await server.stop("SIGTERM"))
  await fake.stop()
}, 300_000)
