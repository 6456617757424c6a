import { type Static, Type } from "@sinclair/typebox"
import { TypeCompiler } from "@sinclair/typebox/compiler"
import { ToolParameter } from "../../tool/parameter.ts"
import { StructuredToolResult, ToolResultStatus } from "../../tool/result.ts"
import { Tool, type ToolContext } from "../../tool/tool.ts"
import { Toolset, ToolsetTag } from "../../tool/toolset.ts"
import { FetchPageError, fetchPage } from "./fetch-page.ts"
import { htmlToText } from "./html-to-text.ts"
import { type Resolver, redactUrl, SsrfError } from "./ssrf.ts"

export { classifyAddress } from "./address.ts"
export { type FetchedPage, fetchPage } from "./fetch-page.ts"
export { htmlToText } from "./html-to-text.ts"
export { guardUrl, type Resolver, SsrfError, type SsrfPolicy } from "./ssrf.ts"

export const INTERNET_TOOLSET = "internet"

/** `toolsets.internet.config`. */
export const InternetConfigSchema = Type.Object(
  {
    allow_private: Type.Optional(
      Type.Boolean({
        description: "Allow private addresses (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7)",
      }),
    ),
    allowed_hosts: Type.Optional(
      Type.Array(Type.String(), {
        description:
          "host or host:port allowed although private; loopback only for an exact host:port; never link-local or metadata",
      }),
    ),
    headers: Type.Optional(
      Type.Record(Type.String(), Type.Record(Type.String(), Type.String()), {
        description: "Extra request headers per host or host:port, sent only to that host",
      }),
    ),
    timeout_seconds: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 600 })),
    max_download_bytes: Type.Optional(Type.Integer({ minimum: 1024 })),
    max_output_chars: Type.Optional(Type.Integer({ minimum: 256 })),
  },
  { additionalProperties: false },
)
export type InternetConfig = Static<typeof InternetConfigSchema>

const CONFIG_CHECK = TypeCompiler.Compile(InternetConfigSchema)
const DEFAULTS = { timeoutSeconds: 30, maxDownloadBytes: 2_000_000, maxOutputChars: 100_000, maxRedirects: 5 }

export type InternetToolsetOptions = {
  /** Replaces `dns.lookup` (tests, or a library user's own resolver). */
  resolve?: Resolver
}

class FetchWebpageTool extends Tool {
  constructor(private readonly options: InternetToolsetOptions) {
    super({
      name: "fetch_webpage",
      description:
        "Fetch a public web page (documentation, status page, release notes) and return its text as markdown. Private, loopback and cloud metadata addresses are refused.",
      parameters: {
        url: new ToolParameter({
          type: "string",
          description: "An http or https URL",
          pattern: "^https?://",
        }),
      },
    })
  }

  override effectiveTimeout(limits: ToolContext["limits"]): number {
    return Math.min(this.#config().timeout_seconds ?? DEFAULTS.timeoutSeconds, limits.timeoutMax)
  }

  protected async invoke(
    params: Record<string, unknown>,
    context: ToolContext,
  ): Promise<StructuredToolResult> {
    const config = this.#config()
    const url = String(params.url)
    let page: Awaited<ReturnType<typeof fetchPage>>
    try {
      page = await fetchPage(url, {
        policy: { allowPrivate: config.allow_private ?? false, allowedHosts: config.allowed_hosts ?? [] },
        headers: config.headers ?? {},
        maxBytes: config.max_download_bytes ?? DEFAULTS.maxDownloadBytes,
        maxRedirects: DEFAULTS.maxRedirects,
        signal: context.signal,
        ...(this.options.resolve ? { resolve: this.options.resolve } : {}),
      })
    } catch (error) {
      if (error instanceof SsrfError || error instanceof FetchPageError)
        return StructuredToolResult.error(error.message)
      throw error
    }
    const isHtml =
      page.contentType === "text/html" || page.contentType === "application/xhtml+xml" || isHtmlSniff(page)
    // Conversion runs under the same signal as the download, so the tool timeout covers it too.
    let text = isHtml
      ? await htmlToText(page.body, { baseUrl: page.url, signal: context.signal })
      : page.body.trim()
    const notes: string[] = []
    if (page.redirects > 0) notes.push(`(redirected to ${redactUrl(new URL(page.url))})`)
    if (page.cut) notes.push(`(only the first ${page.body.length} characters of the page were downloaded)`)
    const maxChars = config.max_output_chars ?? DEFAULTS.maxOutputChars
    if (text.length > maxChars) {
      text = `${text.slice(0, maxChars)}\n(page text cut at ${maxChars} characters)`
    }
    const data = [...notes, text].join("\n")
    if (page.status >= 400) {
      return new StructuredToolResult({
        status: ToolResultStatus.ERROR,
        error: `HTTP ${page.status} ${page.statusText} from ${redactUrl(new URL(page.url))}`,
        data,
        invocation: url,
      })
    }
    return new StructuredToolResult({
      status: text ? ToolResultStatus.SUCCESS : ToolResultStatus.NO_DATA,
      data,
      invocation: url,
    })
  }

  /** The toolset's config, read at call time; invalid config never gets here (the toolset fails). */
  #config(): InternetConfig {
    const config = this.toolset?.config ?? {}
    return CONFIG_CHECK.Check(config) ? config : {}
  }
}

function isHtmlSniff(page: { contentType: string; body: string }): boolean {
  return !page.contentType && /^\s*<(!doctype html|html)/i.test(page.body.slice(0, 512))
}

/** The `internet` toolset (`fetch_webpage`). Enabled by default; see docs/security.md "SSRF guard". */
export function createInternetToolset(
  entry: { enabled?: boolean; config?: Record<string, unknown> } = {},
  options: InternetToolsetOptions = {},
): Toolset {
  return new Toolset({
    name: INTERNET_TOOLSET,
    description: "Fetch public web pages as text",
    enabled: entry.enabled ?? true,
    tools: [new FetchWebpageTool(options)],
    tags: [ToolsetTag.CORE],
    configClasses: [InternetConfigSchema],
    config: entry.config ?? {},
    llmInstructions:
      "fetch_webpage reads public web pages (docs, changelogs, status pages). It refuses private, loopback and cloud metadata addresses; do not try to work around a refusal.",
  })
}
