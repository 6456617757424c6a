import type { ParsedArgs } from "../../commands/args.ts"
import { UsageError } from "../../commands/args.ts"
import { describeFailure, EXIT } from "../../commands/exit.ts"
import { applyLogLevel, loadCliConfig } from "../../commands/load-config.ts"
import { writeStderr, writeStderrRaw, writeStdout, writeStdoutRaw } from "../../commands/output.ts"
import { processEnv } from "../../config/env.ts"
import { AbortError, errorMessage, ModelError } from "../../errors.ts"
import { TokenCounter } from "../../llm/tokens.ts"
import { setLogSink, setReadableLogs } from "../../log.ts"
import { createRuntime } from "../../runtime/runtime.ts"
import { AnswerView } from "../ask/answer-view.ts"
import { approveAllSaying, askOnTerminal, denyWithoutTerminal } from "../ask/approval.ts"
import { banner, unavailableNotice } from "../ask/banner.ts"
import { Interrupts } from "../ask/interrupts.ts"
import { askOptions } from "../ask/options.ts"
import { page } from "../ask/pager.ts"
import { Progress } from "../ask/progress.ts"
import { completeCommand, followUpLoop } from "../ask/repl.ts"
import { AskSession } from "../ask/session.ts"
import { readPipedStdin } from "../ask/stdin.ts"
import { terminalReader } from "../ask/terminal-reader.ts"
import { ToolOutputs } from "../ask/tool-outputs.ts"
import { style } from "../render/style.ts"
import { terminalFacts } from "../render/terminal.ts"

/** `dupin ask`: one question (and, on a terminal, follow-ups). */
export async function askCommand(args: ParsedArgs): Promise<number> {
  const options = askOptions(args)
  const terminal = process.stdin.isTTY === true
  if (options.question === undefined && !terminal) {
    throw new UsageError(
      'stdin is not a terminal, so give the question as an argument: dupin ask "QUESTION" (piped input is attached as context)',
    )
  }
  // Follow-ups need someone reading the answers: with stdout redirected (`> answer.md`) the
  // answer is the output and the command ends. Approvals only need a terminal to ask on.
  const interactive = terminal && process.stdout.isTTY === true && !options.noInteractive && !options.json
  if (options.question === undefined && !interactive)
    throw new UsageError('give a question: dupin ask "QUESTION"')

  applyLogLevel("WARN")
  const env = processEnv()
  const seen = terminalFacts({
    env,
    noColor: options.noColor,
    stdout: process.stdout,
    stderr: process.stderr,
  })
  // --json: stdout carries the body alone, never a streamed or rendered answer.
  const facts = options.json ? { ...seen, render: false, streamAnswer: false } : seen
  const answer = new AnswerView({ facts, style: style(facts.render), write: writeStdoutRaw })
  const progress = new Progress({ write: writeStderrRaw, facts, answer })
  // A person reads stderr: warnings (retries, an unknown model) are one dim line above the
  // progress, not JSON. SVC_LOG_LEVEL or a redirected stderr keeps the JSON logs. A terminal
  // without cursor moves (TERM=dumb) still gets readable lines, written as they come.
  if (process.stderr.isTTY === true && !env.SVC_LOG_LEVEL?.trim()) {
    setReadableLogs(true)
    if (facts.live) setLogSink((line) => progress.note(line))
  }
  const config = loadCliConfig({
    configPath: options.configPath,
    model: options.model,
    maxSteps: options.maxSteps,
    toolsetFiles: options.toolsetFiles,
    enableBash: options.bash,
  })
  // Everything the operator could have got wrong (model, key, toolset files) fails here, before
  // stdin is read or a question is sent.
  const runtime = createRuntime(config)
  const model = runtime.model()
  // The first question's tool runs (prerequisite checks, tools) find the sandbox started: it starts
  // while the toolsets are built.
  runtime.warmToolSandbox()
  const executor = runtime.executor
  const llm = runtime.engine()
  // Needed before the first question goes out; cached and awaited again where it is used. The
  // prerequisite checks are not started here: the first question starts them (the system prompt
  // needs the ones that fail without a process) and only a call to a checked toolset's tools waits
  // for them. Started here, their processes (kubectl, docker: ~200 ms of Go start-up) took the
  // second core from the start's own work: ask 668 -> 594 and 797 -> 623 ms without them.
  TokenCounter.forModel(model.info.id).catch(() => undefined)

  const interrupts = new Interrupts({
    write: writeStderr,
    exit: () => process.exit(EXIT.interrupted),
    interactive,
  })
  interrupts.install()
  const stdin = terminal ? undefined : await readPipedStdin()
  const reader = terminal
    ? terminalReader({
        env,
        write: writeStderr,
        complete: completeCommand,
        onInterrupt: () => interrupts.press(true),
      })
    : undefined
  const outputs = new ToolOutputs()
  const approval = options.yes
    ? approveAllSaying((line) => progress.note(line))
    : reader
      ? askOnTerminal(reader, progress, writeStderr, () => interrupts.signal)
      : denyWithoutTerminal
  const session = new AskSession({
    runtime,
    llm,
    progress,
    approval,
    attachments: { filePaths: options.files, files: stdin ? [stdin] : [] },
    outputs,
  })
  const run = async (question: string) => {
    const controller = interrupts.begin()
    progress.begin()
    try {
      return await session.ask(question, controller.signal)
    } catch (error) {
      answer.abandon()
      throw error
    } finally {
      progress.end()
      interrupts.end()
    }
  }

  if (!interactive || !reader) {
    // One question, no banner: a person watching stderr is still told what the answer cannot use
    // (`dupin ask "…" | tee`, --no-interactive). A script's stderr is left as it was.
    if (process.stderr.isTTY === true) {
      await executor.ensureReady().catch(() => undefined)
      const notice = unavailableNotice(executor.toolsets)
      if (notice) progress.note(notice.replace(/\n$/, ""))
    }
    const body = await run(options.question ?? "")
    if (options.json) await writeStdout(JSON.stringify(body, null, 2))
    else await answer.finish(body.analysis ?? "")
    return EXIT.ok
  }

  // Interactive: a failed or interrupted question returns to the prompt instead of ending the session.
  await executor.ensureReady().catch(() => undefined)
  writeStderr(banner(model, executor.toolsets))
  let noticed = false
  const turn = async (question: string) => {
    // Once per session, before the first question: the banner said it too, but scrolled away.
    const notice = noticed ? undefined : unavailableNotice(executor.toolsets)
    noticed = true
    if (notice) progress.note(notice.replace(/\n$/, ""))
    try {
      await answer.finish((await run(question)).analysis ?? "")
    } catch (error) {
      if (error instanceof AbortError) writeStderr("Stopped.\n")
      else if (error instanceof ModelError) writeStderr(`${describeFailure(error).line}\n`)
      else throw error
    }
  }
  if (options.question !== undefined) await turn(options.question)
  const switchModel = (name: string | undefined): string => {
    const current = session.llm.model.name
    if (name === undefined) {
      const any = config.modelList ? "" : " (or any provider/model id, as --model takes)"
      return `Model: ${current}. Available: ${config.modelNames().join(", ") || current}${any}.`
    }
    try {
      const engine = runtime.engine(name, { providerId: true })
      const next = engine.model
      session.useLlm(engine)
      TokenCounter.forModel(next.info.id).catch(() => undefined)
      return `Model: ${next.name} (${next.info.contextWindow.toLocaleString("en-US")}-token context); the conversation goes on with it.`
    } catch (error) {
      return errorMessage(error)
    }
  }
  try {
    await followUpLoop({
      reader,
      session,
      executor,
      outputs,
      write: writeStderr,
      turn,
      switchModel,
      page: (text) => page(text, { env, terminal: process.stdout.isTTY === true, write: writeStdout }),
    })
  } finally {
    await outputs.dispose()
  }
  return EXIT.ok
}
