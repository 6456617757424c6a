import { ToolParameter } from "../../tool/parameter.ts"
import { StructuredToolResult, ToolResultStatus } from "../../tool/result.ts"
import { runPipeline } from "../../tool/spawn.ts"
import { spawnScope } from "../../tool/spawn-scope.ts"
import { Tool, type ToolContext } from "../../tool/tool.ts"
import type { ParsedCommand } from "./parse.ts"
import type { BashPolicyConfig } from "./policy.ts"
import type { Verdict } from "./verdict.ts"

/**
 * The command grammar and the policy with its program rules (~120 KB, ~10 ms to load) load with
 * the first command, not with every start: the toolset is off unless the config enables it.
 * Bun's require of an ES module is synchronous, so the checks stay synchronous.
 */
const grammar = (): typeof import("./parse.ts") => require("./parse.ts")
const policy = (): typeof import("./policy.ts") => require("./policy.ts")
const rules = (): typeof import("./rules/registry.ts") => require("./rules/registry.ts")

const DESCRIPTION = `Runs one read-only diagnostic command line on this host and returns its output (stdout and stderr).
A pipeline of at most 16 simple commands (4,096 characters) is allowed: \`kubectl get pods -A | grep -v Running | head -n 20\`.
Not allowed: \`;\` \`&&\` \`||\` \`&\`, redirections (except a final \`2>&1\`), variables, $(…) and backticks, globs, ~, subshells, here-docs.
Without approval, each with its read-only options only: reading files (cat, head, tail, grep, wc, sort, uniq, cut, ls, stat,
find without -exec/-delete, du, file, jq, sed, awk), kubectl get/describe/logs/top/events/explain/api-resources (not secrets),
helm list/status/history/get values, docker ps/inspect/logs/images, and host reads (uptime, free, df, ps, ss, ip addr,
systemctl status, journalctl, dmesg, sysctl). An option dupin does not know, or one that writes, runs a program or changes
the host, needs a human's approval. Credential files (SSH/cloud/registry keys, kubeconfigs, /etc/shadow, /proc/*/environ,
dupin's own files) are refused even with approval.
sed, awk and jq programs run unasked only in a small subset: sed addresses with s///, y, p, d, q, =, {}; awk patterns and
actions with print/printf (no redirection or pipes), assignments, arrays, if/for/while and common builtins; jq paths,
pipes, select/map and other pure builtins (no import, input, def or comments).`

export type BashToolOptions = Partial<BashPolicyConfig>

/**
 * `run_bash_command`. The command text is parsed once into argv stages and those exact stages
 * run, wired by dupin's pipes: no shell ever reads what the model wrote, so an approval covers
 * exactly the command that was shown.
 */
export class BashTool extends Tool {
  readonly #policy: BashPolicyConfig
  /** `runPipeline` kills the groups at the deadline and keeps what was printed. */
  protected override readonly timeoutOwner = "process"

  constructor(options: BashToolOptions = {}) {
    super({
      name: "run_bash_command",
      description: DESCRIPTION,
      parameters: {
        command: new ToolParameter({
          type: "string",
          description: "The command line to run.",
          allowLeadingDash: true,
        }),
        timeout: new ToolParameter({
          type: "integer",
          description: "Seconds before the command is killed.",
          required: false,
        }),
      },
    })
    // Spread first: protectedPaths (the config file, env files, KUBECONFIG entries) must reach the policy.
    this.#policy = {
      ...options,
      allow: options.allow ?? [],
      deny: options.deny ?? [],
      cwd: options.cwd ?? process.cwd(),
    }
  }

  /** The parse and policy verdict for a command, for approval prompts and tests. */
  evaluate(command: string): { parsed: ParsedCommand; verdict: Verdict | undefined } {
    const parsed = grammar().parseCommand(command)
    return { parsed, verdict: parsed.ok ? policy().classifyPipeline(parsed.stages, this.#policy) : undefined }
  }

  override requiresApproval(params: Record<string, unknown>): boolean | string {
    const { verdict } = this.evaluate(commandOf(params))
    // Parse failures and denials are not put to a human: `invoke` refuses them.
    return verdict?.decision === "approve" ? `Needs approval: ${verdict.reason}.` : false
  }

  /** The per-call `timeout` becomes the run's time limit (capped by the config's maximum). */
  override run(params: Record<string, unknown>, context: ToolContext): Promise<StructuredToolResult> {
    const requested = typeof params.timeout === "number" && params.timeout > 0 ? params.timeout : undefined
    if (requested === undefined) return super.run(params, context)
    return super.run(params, { ...context, limits: { ...context.limits, timeoutDefault: requested } })
  }

  override getParameterizedOneLiner(params: Record<string, unknown>): string {
    return commandOf(params)
  }

  protected override async invoke(
    params: Record<string, unknown>,
    context: ToolContext,
  ): Promise<StructuredToolResult> {
    const command = commandOf(params)
    const { parsed, verdict } = this.evaluate(command)
    if (!parsed.ok) return refused(`Command refused (not run): ${parsed.reason}`, command)
    if (!verdict || verdict.decision === "deny") {
      return refused(
        `Command refused (not run, even with approval): ${verdict?.reason ?? "no verdict"}.`,
        command,
      )
    }
    if (verdict.decision === "approve" && !context.approved) {
      return new StructuredToolResult({
        status: ToolResultStatus.APPROVAL_REQUIRED,
        error: `Needs approval: ${verdict.reason}.`,
        invocation: command,
      })
    }
    const seconds = this.effectiveTimeout(context.limits)
    const stages = verdict.decision === "allow" ? withSafeModes(parsed.stages, context.env) : parsed.stages
    const result = await runPipeline({
      stages,
      env: context.env,
      cwd: this.#policy.cwd,
      timeoutMs: seconds * 1000,
      signal: context.signal,
      maxOutputBytes: context.limits.outputMaxBytes,
      ...spawnScope(context),
      spill: true,
    })
    if (result.aborted) throw context.signal.reason ?? new Error("aborted")
    const ok = result.exitCode === 0 && !result.timedOut
    const error = result.timedOut
      ? `Command timed out after ${seconds} s.`
      : ok
        ? null
        : `Command exited with ${result.exitCode ?? result.signalCode}.`
    return new StructuredToolResult({
      status: ok
        ? result.output.trim()
          ? ToolResultStatus.SUCCESS
          : ToolResultStatus.NO_DATA
        : ToolResultStatus.ERROR,
      data: result.output,
      error,
      returnCode: result.exitCode,
      invocation: command,
      ...(result.spill ? { spill: result.spill } : {}),
    })
  }
}

/**
 * Stages that run without a human get their program's own sandbox as a second wall behind the
 * grammar checks: GNU sed `--sandbox` rejects e/r/w, gawk `--sandbox` disables system(), pipes,
 * redirection and getline from files. If dupin's reading of a script ever differs from the
 * program's, the program still refuses to leave the text stream. Approved commands run exactly
 * as the human saw them.
 */
export function withSafeModes(stages: string[][], env: Record<string, string>): string[][] {
  return stages.map((argv) => {
    const [program, ...args] = argv
    if (program === undefined) return argv
    const name = program.slice(program.lastIndexOf("/") + 1)
    const flavour = rules().ruleFor(name)?.safeMode
    if (flavour === undefined || !isFlavour(program, flavour, env.PATH ?? "")) return argv
    return [program, "--sandbox", ...args]
  })
}

/** `program --version` names the flavour; asked once per resolved executable (awk may be mawk). */
const FLAVOURS = new Map<string, string>()

function isFlavour(program: string, flavour: string, PATH: string): boolean {
  const path = Bun.which(program, { PATH })
  if (path === null) return false
  let version = FLAVOURS.get(path)
  if (version === undefined) {
    const probe = Bun.spawnSync([path, "--version"], {
      env: { PATH, LC_ALL: "C" },
      stdin: "ignore",
      stderr: "ignore",
      timeout: 2000,
    })
    version = probe.stdout.toString().split("\n", 1)[0] ?? ""
    FLAVOURS.set(path, version)
  }
  return version.includes(flavour)
}

function commandOf(params: Record<string, unknown>): string {
  return typeof params.command === "string" ? params.command : ""
}

function refused(message: string, command: string): StructuredToolResult {
  return new StructuredToolResult({ status: ToolResultStatus.ERROR, error: message, invocation: command })
}
