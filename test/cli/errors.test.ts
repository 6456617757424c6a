import { describe, expect, test } from "bun:test"
import { startFakeProvider } from "../support/fake-provider.ts"
import { cliEnv, runCli, SUBPROCESS_TIMEOUT_MS, tempFile } from "./support.ts"

/** A failure is exactly one line on stderr, nothing on stdout. */
function expectOneLine(result: { stdout: string; stderr: string }, pattern: RegExp): void {
  expect(result.stdout).toBe("")
  const lines = result.stderr.trimEnd().split("\n")
  expect(lines).toHaveLength(1)
  expect(lines[0]).toStartWith("dupin: ")
  expect(lines[0]).toMatch(pattern)
}

describe("usage and config errors exit 2 with one line naming what to fix", () => {
  test.each([
    [
      ["frobnicate"],
      /unknown command "frobnicate"\. Commands: ask, serve, eval, investigate, toolsets, models, init, version/,
    ],
    [["ask", "q", "--bogus"], /unknown option --bogus for dupin ask \(see: dupin ask --help\)/],
    [["serve", "--port", "http"], /--port must be an integer from 0 to 65535, not "http"/],
    [["ask", "q", "--max-steps", "0"], /--max-steps must be an integer/],
    [["ask", "q", "-f", "/nonexistent/app.log"], /cannot read \/nonexistent\/app\.log/],
    [["toolsets", "frob"], /dupin toolsets takes list or check, not "frob"/],
    [["version", "extra"], /unexpected argument "extra" for dupin version/],
    [
      ["ask", "q", "--config", "/nonexistent/dupin.yaml"],
      /Cannot read config file \/nonexistent\/dupin\.yaml/,
    ],
  ])(
    "dupin %p",
    async (args, pattern) => {
      const result = await runCli(args)
      expectOneLine(result, pattern)
      expect(result.code).toBe(2)
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "a custom toolset file that cannot be read names the config file that lists it",
    async () => {
      const config = tempFile("dupin.yaml", "custom_toolsets: [/nonexistent/team.yaml]\n")
      const result = await runCli(["toolsets", "--config", config])
      expectOneLine(result, /dupin\.yaml: custom_toolsets: cannot read \/nonexistent\/team\.yaml/)
      expect(result.stderr).toContain(config)
      expect(result.code).toBe(2)
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "ask without a model says how to choose one",
    async () => {
      const result = await runCli(["ask", "why?"])
      expectOneLine(result, /No model configured: pass --model, set MODEL/)
      expect(result.code).toBe(2)
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "ask without the provider key names the variable",
    async () => {
      const result = await runCli(["ask", "why?", "--model", "openai/gpt-4o"])
      expectOneLine(result, /OPENAI_API_KEY/)
      expect(result.code).toBe(2)
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "piped stdin without a question asks for the question as an argument",
    async () => {
      const result = await runCli(["ask"], {
        stdin: "some log lines\n",
        env: cliEnv(undefined, { MODEL: "openai/gpt-4o" }),
      })
      expectOneLine(result, /stdin is not a terminal, so give the question as an argument/)
      expect(result.code).toBe(2)
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "a config file with an unknown key names the file and the key",
    async () => {
      const path = tempFile("dupin.yaml", "model: openai/gpt-4o\nmax_stepz: 3\n")
      const result = await runCli(["models", "--config", path])
      expectOneLine(result, new RegExp(`${path}: .*unknown key`))
      expect(result.code).toBe(2)
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "SVC_CONFIG_PATH is used when --config is not given, and --config wins over it",
    async () => {
      const broken = tempFile("broken.yaml", "model: [\n")
      const good = tempFile("good.yaml", "model: openai/gpt-4o-mini\n")
      const env = cliEnv(undefined, { SVC_CONFIG_PATH: broken })
      expectOneLine(await runCli(["models"], { env }), /broken\.yaml.*invalid YAML/)
      const result = await runCli(["models", "--json", "--config", good], { env })
      expect(result.code).toBe(0)
      expect(JSON.parse(result.stdout).model_name).toEqual(["openai/gpt-4o-mini"])
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "a model name outside modelList is refused",
    async () => {
      const path = tempFile("dupin.yaml", "modelList:\n  fast: { model: openai/gpt-4o-mini, api_key: k }\n")
      const result = await runCli(["ask", "q", "--config", path, "--model", "slow"])
      expectOneLine(result, /slow is not a modelList key\. Use one of: fast/)
      expect(result.code).toBe(2)
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "serve refuses a non-loopback address without a token, and says why",
    async () => {
      const result = await runCli(["serve", "--host", "0.0.0.0", "--port", "0"], {
        env: cliEnv(undefined, { MODEL: "openai/gpt-4o" }),
      })
      expectOneLine(result, /Refusing to listen on 0\.0\.0\.0 without an auth token.*--insecure/)
      expect(result.code).toBe(2)
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "a bad SVC_LOG_LEVEL is a config error",
    async () => {
      const result = await runCli(["models"], { env: cliEnv(undefined, { SVC_LOG_LEVEL: "LOUD" }) })
      expectOneLine(result, /SVC_LOG_LEVEL must be DEBUG, INFO, WARN or ERROR/)
      expect(result.code).toBe(2)
    },
    SUBPROCESS_TIMEOUT_MS,
  )
})

describe("runtime failures exit 1", () => {
  test(
    "a provider that rejects the key",
    async () => {
      const fake = await startFakeProvider()
      try {
        fake.script({ status: 401 })
        const result = await runCli(["ask", "why?"], { env: cliEnv(fake) })
        expect(result.code).toBe(1)
        expect(result.stdout).toBe("")
        expect(result.stderr.trimEnd().split("\n").at(-1)).toMatch(/^dupin: .+/)
      } finally {
        await fake.stop()
      }
    },
    SUBPROCESS_TIMEOUT_MS,
  )
})

describe("help and version", () => {
  test(
    "--help prints the command's usage on stdout and exits 0",
    async () => {
      const result = await runCli(["ask", "--help"])
      expect(result.code).toBe(0)
      expect(result.stdout).toStartWith("Usage: dupin ask [QUESTION]")
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "version prints version and commit",
    async () => {
      const result = await runCli(["version"])
      expect(result.code).toBe(0)
      expect(result.stdout).toMatch(/^dupin \d+\.\d+\.\d+\S* \(commit \S+,/)
    },
    SUBPROCESS_TIMEOUT_MS,
  )
})
