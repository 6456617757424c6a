import { raceAbort } from "../../abort.ts"
import { ToolParameter } from "../../tool/parameter.ts"
import { StructuredToolResult, ToolResultStatus } from "../../tool/result.ts"
import { Tool, type ToolContext } from "../../tool/tool.ts"
import { internetConfig, ssrfPolicy } from "./config.ts"
import { guardHost, type Resolver, SsrfError } from "./ssrf.ts"

const DEFAULT_TIMEOUT_SECONDS = 5
const MAX_TIMEOUT_SECONDS = 60

/**
 * `host_tcp_check`: whether a TCP connection to host:port succeeds. It was a bash `/dev/tcp` tool,
 * so the model could probe loopback services and metadata endpoints and map the network; now the
 * SSRF guard judges the resolved addresses (with the internet toolset's allow_private,
 * allowed_hosts and egress_allowlist) and the connection goes to the address it validated, so a
 * second DNS answer cannot point elsewhere.
 */
export class HostTcpCheckTool extends Tool {
  constructor(private readonly resolve: Resolver | undefined) {
    super({
      name: "host_tcp_check",
      description:
        "Whether a TCP connection to host:port succeeds from this host, within a timeout. Loopback, link-local and cloud metadata addresses are refused; private ones unless the operator allows them.",
      parameters: {
        host: new ToolParameter({
          type: "string",
          description: "Host name or IP address",
          pattern: "^[A-Za-z0-9.:_-]+$",
        }),
        port: new ToolParameter({ type: "integer", description: "TCP port (1-65535)" }),
        timeout_seconds: new ToolParameter({
          type: "integer",
          required: false,
          description: `Seconds to wait (default ${DEFAULT_TIMEOUT_SECONDS}, at most ${MAX_TIMEOUT_SECONDS})`,
          default: DEFAULT_TIMEOUT_SECONDS,
        }),
      },
    })
  }

  override effectiveTimeout(limits: ToolContext["limits"]): number {
    // Resolution plus the connect wait; the connect has its own, shorter deadline below.
    return Math.min(MAX_TIMEOUT_SECONDS + 10, limits.timeoutMax)
  }

  protected async invoke(
    params: Record<string, unknown>,
    context: ToolContext,
  ): Promise<StructuredToolResult> {
    const host = String(params.host)
    const port = Number(params.port)
    const seconds = Math.min(
      MAX_TIMEOUT_SECONDS,
      Math.max(1, Number(params.timeout_seconds ?? DEFAULT_TIMEOUT_SECONDS)),
    )
    if (!Number.isInteger(port) || port < 1 || port > 65535)
      return StructuredToolResult.error(`port must be between 1 and 65535, not ${port}.`)
    const shown = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`
    let address: string
    try {
      const target = await guardHost(
        host,
        port,
        ssrfPolicy(internetConfig(this.toolset)),
        context.signal,
        this.resolve,
      )
      address = target.address
    } catch (error) {
      if (error instanceof SsrfError) return StructuredToolResult.error(error.message)
      throw error
    }
    const outcome = await connect(address, port, seconds * 1000, context.signal)
    const data =
      outcome === "open"
        ? `open: connected to ${shown}`
        : outcome === "timeout"
          ? `timeout: no answer from ${shown} within ${seconds} s`
          : `closed: cannot connect to ${shown}: ${outcome.error}`
    return new StructuredToolResult({ status: ToolResultStatus.SUCCESS, data, invocation: `tcp ${shown}` })
  }
}

type Outcome = "open" | "timeout" | { error: string }

/** Connects and closes at once; a connect still pending at the deadline is closed when it lands. */
async function connect(address: string, port: number, ms: number, signal: AbortSignal): Promise<Outcome> {
  const attempt = Bun.connect({
    hostname: address,
    port,
    socket: { data() {}, error() {}, connectError() {} },
  })
  let timer: ReturnType<typeof setTimeout> | undefined
  const deadline = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), ms)
  })
  const outcome = Promise.race([
    attempt.then(
      (socket): Outcome => {
        socket.end()
        return "open"
      },
      (error: unknown): Outcome => ({ error: describe(error) }),
    ),
    deadline,
  ])
  try {
    return await raceAbort(outcome, signal, (s) => s.reason)
  } finally {
    clearTimeout(timer)
    attempt.then(
      (socket) => socket.end(),
      () => {},
    )
  }
}

function describe(error: unknown): string {
  const code = (error as { code?: unknown }).code
  if (typeof code === "string") return code === "ECONNREFUSED" ? "Connection refused" : code
  return error instanceof Error ? error.message : String(error)
}
