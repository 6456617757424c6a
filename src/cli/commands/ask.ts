import { ToolCallingLLM } from "../../agent/tool-calling-llm.ts"
import { AbortError, ModelError } from "../../errors.ts"
import { TokenCounter } from "../../llm/tokens.ts"
import { toolExecutorFor } from "../../runtime/runtime.ts"
import type { ParsedArgs } from "../args.ts"
import { UsageError } from "../args.ts"
import { approveAll, askOnTerminal, denyWithoutTerminal } from "../ask/approval.ts"
import { Interrupts } from "../ask/interrupts.ts"
import { LineReader } from "../ask/line-reader.ts"
import { askOptions } from "../ask/options.ts"
import { Progress } from "../ask/progress.ts"
import { followUpLoop } from "../ask/repl.ts"
import { AskSession } from "../ask/session.ts"
import { readPipedStdin } from "../ask/stdin.ts"
import { applyLogLevel, loadCliConfig } from "../cli-config.ts"
import { describeFailure, EXIT } from "../exit.ts"
import { writeStderr, writeStdout } from "../output.ts"

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
  const config = loadCliConfig({
    configPath: options.configPath,
    model: options.model,
    maxSteps: options.maxSteps,
    toolsetFiles: options.toolsetFiles,
    enableBash: options.bash,
  })
  // Everything the operator could have got wrong (model, key, toolset files) fails here, before
  // stdin is read or a question is sent.
  const model = config.createModel()
  const executor = toolExecutorFor(config)
  const llm = new ToolCallingLLM({
    model,
    toolExecutor: executor,
    maxSteps: config.maxSteps,
    context: config.context,
  })
  // Both are needed before the first question goes out. The prerequisite checks mostly wait on
  // subprocesses while the tokenizer parses its ranks on the CPU, so started together they
  // overlap; each is cached and awaited again where it is used.
  executor.ensureReady().catch(() => undefined)
  TokenCounter.forModel(model.info.id).catch(() => undefined)

  const interrupts = new Interrupts({
    write: writeStderr,
    exit: () => process.exit(EXIT.interrupted),
    interactive,
  })
  interrupts.install()
  const stdin = terminal ? undefined : await readPipedStdin()
  const reader = terminal ? new LineReader(process.stdin, writeStderr) : undefined
  const progress = new Progress({ write: writeStderr })
  const approval = options.yes
    ? approveAll
    : reader
      ? askOnTerminal(reader, progress, writeStderr, () => interrupts.signal)
      : denyWithoutTerminal
  const session = new AskSession({
    config,
    llm,
    progress,
    approval,
    attachments: { filePaths: options.files, files: stdin ? [stdin] : [] },
  })
  const run = async (question: string) => {
    const controller = interrupts.begin()
    try {
      return await session.ask(question, controller.signal)
    } finally {
      interrupts.end()
    }
  }

  if (!interactive || !reader) {
    const body = await run(options.question ?? "")
    await writeStdout(options.json ? JSON.stringify(body, null, 2) : (body.analysis ?? ""))
    return EXIT.ok
  }

  // Interactive: a failed or interrupted question returns to the prompt instead of ending the session.
  const turn = async (question: string) => {
    try {
      await writeStdout((await run(question)).analysis ?? "")
    } catch (error) {
      if (error instanceof AbortError) writeStderr("Stopped.\n")
      else if (error instanceof ModelError) writeStderr(`${describeFailure(error).line}\n`)
      else throw error
    }
  }
  if (options.question !== undefined) await turn(options.question)
  await followUpLoop({ reader, session, executor, write: writeStderr, turn })
  return EXIT.ok
}
