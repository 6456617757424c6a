import { describe, expect, test } from "bun:test"
import { commandTable, mainHelp } from "../../src/cli/commands.ts"
import { parseArgs, UsageError } from "../../src/commands/args.ts"

// The table as the executable builds it; serve's implementation is never loaded here.
const COMMANDS = commandTable(async () => async () => 0)

const ask = COMMANDS.ask?.options ?? {}

describe("parseArgs", () => {
  test("collects repeatable options, inline values, short aliases and the question words", () => {
    const args = parseArgs(
      ["why", "-f", "a.log", "--file=b.log", "-fc.log", "is", "--max-steps", "3", "it", "down?", "--yes"],
      ask,
      "ask",
    )
    expect(args.values.file).toEqual(["a.log", "b.log", "c.log"])
    expect(args.values["max-steps"]).toBe("3")
    expect(args.values.yes).toBe(true)
    expect(args.positionals).toEqual(["why", "is", "it", "down?"])
  })

  test("everything after -- is a positional, even when it looks like an option", () => {
    const args = parseArgs(["--json", "--", "--why", "-f"], ask, "ask")
    expect(args.values.json).toBe(true)
    expect(args.positionals).toEqual(["--why", "-f"])
  })

  test("a negative number is an option's value, left for its range check to refuse", () => {
    expect(parseArgs(["q", "--max-steps", "-1"], ask, "ask").values["max-steps"]).toBe("-1")
  })

  test("--help anywhere asks for help", () => {
    expect(parseArgs(["q", "--help"], ask, "ask").help).toBe(true)
    expect(parseArgs(["-h"], ask, "ask").help).toBe(true)
  })

  test.each([
    [["--nope"], "unknown option --nope for dupin ask"],
    [["--modle", "x"], "unknown option --modle for dupin ask: did you mean --model?"],
    [["--model"], "--model needs a value"],
    [["--model", "--json"], "--model needs a value"],
    [["--json=yes"], "--json takes no value"],
    [["--model", "a", "--model", "b"], "--model given twice"],
  ])("%p is refused with one line naming the option", (argv, message) => {
    let error: unknown
    try {
      parseArgs(argv, ask, "ask")
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(UsageError)
    expect((error as Error).message).toBe(`${message} (see: dupin ask --help)`)
  })
})

describe("help", () => {
  test("every command's help has a usage line and an example", () => {
    for (const [name, command] of Object.entries(COMMANDS)) {
      expect(command.help).toStartWith(`Usage: dupin ${name}`)
      expect(command.help).toMatch(/Examples?:\n {2}dupin /)
      for (const option of Object.keys(command.options)) expect(command.help).toContain(`--${option}`)
    }
  })

  test("serve's help names every face it serves", () => {
    const help = COMMANDS.serve?.help ?? ""
    for (const path of [
      "/api/chat",
      "/api/model",
      "/api/agui",
      "/api/alerts/alertmanager",
      "/healthz",
      "/readyz",
    ])
      expect(help).toContain(path)
    expect(help).toContain("web console")
  })

  // Issue 21 item 9: a first run fails on the model or its key; the help must say where they come from.
  test("the main help and every command that calls a model name dupin init and the key variables", () => {
    for (const help of [mainHelp(COMMANDS), COMMANDS.ask!.help, COMMANDS.serve!.help]) {
      expect(help).toContain("dupin init")
      expect(help).toContain("OPENAI_API_KEY")
      expect(help).toContain("DEEPSEEK_API_KEY")
    }
  })
})
