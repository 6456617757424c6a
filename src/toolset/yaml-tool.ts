import type { ToolParameter } from "../tool/parameter.ts"
import { StructuredToolResult, ToolResultStatus } from "../tool/result.ts"
import { type ProcessResult, runPipeline, runProcess } from "../tool/spawn.ts"
import { spawnScope } from "../tool/spawn-scope.ts"
import { CommandTemplate, ENV_PREFIX, TemplateError } from "../tool/template.ts"
import { paramsInOneLine, Tool, type ToolContext } from "../tool/tool.ts"
import { withSafeModes } from "./bash/bash-tool.ts"
import { type Verdict, worst } from "./bash/verdict.ts"
import { type OutputFilter, parseOutputFilter } from "./output-filter.ts"
import { type ProgramKind, programTextVerdict } from "./program-text.ts"
import { commandArgv } from "./shell.ts"

export type YamlToolInit = {
  name: string
  description: string
  /** The command template (YAML `command`, or HolmesGPT's `script`). */
  command: string
  parameters?: Record<string, ToolParameter>
  /** Seconds; capped by the configured maximum. */
  timeout?: number
  requiresApproval?: boolean
  /** Parameters whose value is a program text (YAML `program: jq`), checked by its grammar. */
  programs?: Record<string, ProgramKind>
  /** The toolset's `config:`, read by `{{ config.key }}` in the command. */
  config?: Readonly<Record<string, unknown>>
  /** Variables the toolset declared (`env:`), from dupin's environment: `$NAME` in the command. */
  passEnv?: Readonly<Record<string, string>>
  /** The answer is about the host (YAML `host_view`): containment should give it the host's view. */
  hostView?: boolean
  /** HolmesGPT's `additional_instructions`: a shell command the output of a successful run is piped through. */
  outputFilter?: string
  /**
   * The command already passed the template checks with these parameters (a toolset file's
   * definition, toolset/schema.ts): the template is built at its first use, not here.
   */
  checked?: boolean
}

/** A tool defined in a YAML toolset: a command template run by the shell with values as data. */
export class YamlTool extends Tool {
  readonly needsApproval: boolean
  readonly programs: Readonly<Record<string, ProgramKind>>
  readonly #config: Readonly<Record<string, unknown>>
  readonly #passEnv: Readonly<Record<string, string>>
  readonly #command: string
  #template: CommandTemplate | undefined
  readonly outputFilter: string | undefined
  readonly #filter: OutputFilter | undefined
  /** Declared by the toolset (`host_view: true`): the run sees the host's processes (spawn.ts `hostView`). */
  readonly hostView: boolean
  /** `runProcess` kills the group at the deadline and keeps what was printed. */
  protected override readonly timeoutOwner = "process"

  /** Throws TemplateError when the command template cannot be parsed (unless `checked`). */
  constructor(init: YamlToolInit) {
    super({
      name: init.name,
      description: init.description,
      parameters: init.parameters,
      timeout: init.timeout,
    })
    this.#command = init.command
    this.needsApproval = init.requiresApproval ?? false
    this.programs = init.programs ?? {}
    this.#config = init.config ?? {}
    this.#passEnv = init.passEnv ?? {}
    this.outputFilter = init.outputFilter
    if (init.outputFilter?.trim()) {
      const filter = parseOutputFilter(init.outputFilter)
      if ("refused" in filter)
        throw new TemplateError(
          `output filter (additional_instructions) \`${init.outputFilter.trim()}\` refused: ${filter.refused}`,
        )
      this.#filter = filter
    }
    this.hostView = init.hostView ?? false
    if (!init.checked) this.#template = this.#parse()
  }

  /** The parsed command template; a checked one is parsed here, at its first use. */
  get template(): CommandTemplate {
    this.#template ??= this.#parse()
    return this.#template
  }

  #parse(): CommandTemplate {
    return new CommandTemplate(this.#command, {
      parameterType: (name) => this.parameters[name]?.type,
      parameterProgram: (name) => this.programs[name],
    })
  }

  override requiresApproval(params: Record<string, unknown>): boolean | string {
    const verdict = this.#programVerdict(params)
    // A denial is not put to a human: `invoke` refuses it, approved or not.
    if (verdict.decision === "deny") return false
    if (this.needsApproval) return true
    if (verdict.decision === "approve") return `Needs approval: ${verdict.reason}.`
    return this.filterApproval ?? false
  }

  /** Why every call needs a human because of the output filter, if it does. */
  get filterApproval(): string | undefined {
    const filter = this.#filter
    return filter?.approval
      ? `Needs approval: its output filter (additional_instructions) \`${filter.text}\`: ${filter.approval}.`
      : undefined
  }

  /** The most restrictive verdict over the program texts among the values. */
  #programVerdict(params: Record<string, unknown>): Verdict {
    return worst(
      ...Object.entries(this.programs).map(([name, kind]) => {
        const value = params[name]
        return typeof value === "string" ? programTextVerdict(kind, value) : undefined
      }),
    )
  }

  /**
   * The spec's "human-readable description of the call", on one line: the command with the values
   * written in (for humans; what runs passes them as data) when that is one line. A multi-line
   * script is described by the tool's description (its first line) and the call's values: the
   * script's first line (`set -e`, a comment, `if ...; then`) rarely says what the call does.
   */
  override getParameterizedOneLiner(params: Record<string, unknown>): string {
    const command = this.#display(params)
    if (command !== undefined && !/[\r\n]/.test(command)) return command
    const what = firstLine(this.description) || this.name
    const values = paramsInOneLine(params)
    return values ? `${what} (${values})` : what
  }

  /** The command with the values written in, or undefined when the values do not render. */
  #display(params: Record<string, unknown>): string | undefined {
    try {
      return this.#render(params).display.trim()
    } catch {
      return undefined
    }
  }

  protected async invoke(
    params: Record<string, unknown>,
    context: ToolContext,
  ): Promise<StructuredToolResult> {
    const verdict = this.#programVerdict(params)
    if (verdict.decision === "deny")
      return StructuredToolResult.error(`Refused (not run, even with approval): ${verdict.reason}.`, params)
    if (verdict.decision === "approve" && !context.approved) {
      return new StructuredToolResult({
        status: ToolResultStatus.APPROVAL_REQUIRED,
        error: `Needs approval: ${verdict.reason}.`,
        params,
        invocation: this.#display(params) ?? this.getParameterizedOneLiner(params),
      })
    }
    const filterApproval = this.filterApproval
    if (filterApproval && !context.approved) {
      return new StructuredToolResult({
        status: ToolResultStatus.APPROVAL_REQUIRED,
        error: filterApproval,
        params,
        invocation: this.#display(params) ?? this.getParameterizedOneLiner(params),
      })
    }
    let rendered: ReturnType<YamlTool["render"]>
    try {
      rendered = this.#render(params)
    } catch (error) {
      if (error instanceof TemplateError) return StructuredToolResult.error(error.message, params)
      throw error
    }
    // A stale DUPIN_P_* from outside must not stand in for a parameter that was left out.
    const env = Object.fromEntries(Object.entries(context.env).filter(([k]) => !k.startsWith(ENV_PREFIX)))
    Object.assign(env, this.#passEnv, rendered.env)
    const seconds = this.effectiveTimeout(context.limits)
    const started = Date.now()
    const run = await runProcess({
      argv: commandArgv(rendered.script, env),
      env,
      timeoutMs: seconds * 1000,
      signal: context.signal,
      maxOutputBytes: context.limits.outputMaxBytes,
      ...spawnScope(context),
      // A filter reads the output whole.
      spill: !this.outputFilter,
      hostView: this.hostView,
    })
    const result = await this.#filtered(run, env, seconds * 1000 - (Date.now() - started), context)
    const cut =
      result.truncatedBytes > 0 ? `\n[output cut: ${result.truncatedBytes} more bytes were not kept]` : ""
    const output = result.output + cut
    const invocation = rendered.display.trim()
    const common = {
      params,
      returnCode: result.exitCode,
      invocation,
      ...(result.spill ? { spill: result.spill } : {}),
    }
    if (result.timedOut) {
      return new StructuredToolResult({
        ...common,
        status: ToolResultStatus.ERROR,
        error: `Command timed out after ${seconds} s and was killed.`,
        data: output || null,
      })
    }
    if (result.exitCode === 0) {
      const status = result.output.trim() === "" ? ToolResultStatus.NO_DATA : ToolResultStatus.SUCCESS
      return new StructuredToolResult({ ...common, status, data: output })
    }
    const how =
      result.exitCode === null
        ? `was killed by ${result.signalCode}`
        : `failed with exit code ${result.exitCode}`
    return new StructuredToolResult({
      ...common,
      status: ToolResultStatus.ERROR,
      error: `Command \`${invocation}\` ${how}.${output ? `\nOutput:\n${output}` : ""}`,
      data: output || null,
    })
  }

  /**
   * HolmesGPT's `additional_instructions`: the output of a successful run piped through the
   * operator's filter (output-filter.ts: run_bash_command's grammar and policy), run without a
   * shell in the read-only view, with the command's environment, the request's process quota,
   * the output cap and the rest of the timeout. A failing filter fails the call, naming it.
   */
  async #filtered(
    run: ProcessResult,
    env: Record<string, string>,
    remainingMs: number,
    context: ToolContext,
  ): Promise<ProcessResult> {
    const filter = this.#filter
    if (!filter || run.exitCode !== 0 || run.timedOut) return run
    const filtered = await runPipeline({
      // As run_bash_command: programs with a sandbox mode get it when no human approved the call.
      stages: filter.approval ? filter.stages : withSafeModes(filter.stages, env),
      env,
      stdin: run.output,
      timeoutMs: Math.max(remainingMs, 1000),
      signal: context.signal,
      maxOutputBytes: context.limits.outputMaxBytes,
      // A filter reads text; it writes nothing, approved or not.
      view: "read-only",
      ...(context.quota ? { quota: context.quota } : {}),
    })
    // HolmesGPT keeps the filter's stdout; its stderr (a jq warning) is no part of the answer.
    if (filtered.exitCode === 0) return { ...filtered, output: filtered.stdout }
    if (filtered.timedOut) return filtered
    return {
      ...filtered,
      output: `Output filter (additional_instructions) \`${filter.text}\` failed:\n${filtered.output}`,
    }
  }

  render(params: Record<string, unknown>): ReturnType<CommandTemplate["render"]> {
    return this.#render(params)
  }

  #render(params: Record<string, unknown>) {
    return this.template.render(params, {
      allowLeadingDash: (name) => this.parameters[name]?.allowLeadingDash ?? false,
      config: this.#config,
    })
  }
}

/** The first non-empty line of a text, trimmed, with an ellipsis when more lines follow. */
function firstLine(text: string): string {
  const lines = text.trim().split(/\r?\n|\r/)
  const first = lines[0]?.trim() ?? ""
  return lines.length > 1 ? `${first} …` : first
}
