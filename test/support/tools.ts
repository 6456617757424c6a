import {
  StructuredToolResult,
  Tool,
  type ToolContext,
  ToolParameter,
  ToolResultStatus,
  Toolset,
} from "../../src/core/tools.ts"
import { runProcess } from "../../src/tool/spawn.ts"

/** Echoes its `text` after `delayMs`, so tests can make calls finish in a chosen order. */
export class EchoTool extends Tool {
  calls: Array<Record<string, unknown>> = []
  constructor(name = "echo") {
    super({
      name,
      description: "Echo text back",
      parameters: {
        text: new ToolParameter({ type: "string", description: "text to echo" }),
        delayMs: new ToolParameter({ type: "integer", required: false }),
      },
    })
  }
  protected async invoke(params: Record<string, unknown>): Promise<StructuredToolResult> {
    this.calls.push(params)
    if (typeof params.delayMs === "number") await Bun.sleep(params.delayMs)
    return new StructuredToolResult({ status: ToolResultStatus.SUCCESS, data: `echo: ${params.text}` })
  }
}

/** Needs approval for every call; records what actually ran. */
export class GuardedTool extends Tool {
  ran: string[] = []
  constructor() {
    super({
      name: "restart_service",
      description: "Restart a service",
      parameters: { service: new ToolParameter({ type: "string" }) },
    })
  }
  override requiresApproval(params: Record<string, unknown>): string {
    return `Restarting ${params.service} changes the system.`
  }
  protected async invoke(params: Record<string, unknown>): Promise<StructuredToolResult> {
    this.ran.push(String(params.service))
    return new StructuredToolResult({ status: ToolResultStatus.SUCCESS, data: `restarted ${params.service}` })
  }
}

/** Prints a Secret manifest, as `kubectl get secret -o yaml` would. */
export class SecretLeakingTool extends Tool {
  static readonly VALUE = "c3VwZXJzZWNyZXRwYXNzd29yZA=="
  constructor() {
    super({ name: "leaky", description: "Prints a Secret" })
  }
  protected async invoke(): Promise<StructuredToolResult> {
    const manifest = `apiVersion: v1\ndata:\n  password: ${SecretLeakingTool.VALUE}\nkind: Secret\nmetadata:\n  name: db\n`
    return new StructuredToolResult({ status: ToolResultStatus.SUCCESS, data: manifest })
  }
}

export class ThrowingTool extends Tool {
  constructor() {
    super({ name: "broken", description: "Always throws" })
  }
  protected async invoke(): Promise<StructuredToolResult> {
    throw new Error("disk on fire")
  }
}

/** Starts a process group that writes its pgid to `pidFile` and sleeps (with a background child). */
export class SleepTool extends Tool {
  /**
   * The sleeps' argument, unique per tool: `ps` on the host finds them by it whether they run
   * contained (a pid namespace of their own, where `$$` is not the host's pid) or not.
   */
  readonly tag = `29.${process.pid}${Math.floor(Math.random() * 1e6)}`

  constructor(private readonly pidFile: string) {
    super({ name: "sleepy", description: "Sleeps" })
  }
  protected async invoke(_: Record<string, unknown>, context: ToolContext): Promise<StructuredToolResult> {
    const result = await runProcess({
      argv: ["sh", "-c", `echo $$ > ${this.pidFile}; sleep ${this.tag} & sleep ${this.tag}`],
      env: context.env,
      timeoutMs: 60_000,
      signal: context.signal,
      maxOutputBytes: 1000,
    })
    return new StructuredToolResult({ status: ToolResultStatus.SUCCESS, data: result.output })
  }
}

export function toolset(name: string, tools: Tool[]): Toolset {
  return new Toolset({ name, description: `${name} tools`, tools })
}
