import { ToolParameter } from "../../tool/parameter.ts"
import { StructuredToolResult, ToolResultStatus } from "../../tool/result.ts"
import { Tool, type ToolContext } from "../../tool/tool.ts"
import { DEFAULTS, internetConfig, ssrfPolicy } from "./config.ts"
import { FetchPageError, fetchPage } from "./fetch-page.ts"
import { type Resolver, redactUrl, SsrfError } from "./ssrf.ts"

export class FetchWebpageTool extends Tool {
  constructor(private readonly resolve: Resolver | undefined) {
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
    return Math.min(
      internetConfig(this.toolset).timeout_seconds ?? DEFAULTS.timeoutSeconds,
      limits.timeoutMax,
    )
  }

  protected async invoke(
    params: Record<string, unknown>,
    context: ToolContext,
  ): Promise<StructuredToolResult> {
    const config = internetConfig(this.toolset)
    const url = String(params.url)
    let page: Awaited<ReturnType<typeof fetchPage>>
    try {
      page = await fetchPage(url, {
        policy: ssrfPolicy(config),
        headers: config.headers ?? {},
        maxBytes: config.max_download_bytes ?? DEFAULTS.maxDownloadBytes,
        maxRedirects: DEFAULTS.maxRedirects,
        signal: context.signal,
        ...(this.resolve ? { resolve: this.resolve } : {}),
      })
    } catch (error) {
      if (error instanceof SsrfError || error instanceof FetchPageError)
        return StructuredToolResult.error(error.message)
      throw error
    }
    const isHtml =
      page.contentType === "text/html" || page.contentType === "application/xhtml+xml" || isHtmlSniff(page)
    const maxChars = config.max_output_chars ?? DEFAULTS.maxOutputChars
    // Conversion runs under the same signal as the download, so the tool timeout covers it too.
    // The converter (and its HTML entity tables, ~10 ms to load) loads with the first page.
    let text = isHtml
      ? await (await import("./html-to-text.ts")).htmlToText(page.body, {
          baseUrl: page.url,
          signal: context.signal,
          maxChars,
        })
      : page.body.trim()
    const notes: string[] = []
    if (page.redirects > 0) notes.push(`(redirected to ${redactUrl(new URL(page.url))})`)
    if (page.cut) notes.push(`(only the first ${page.body.length} characters of the page were downloaded)`)
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
}

function isHtmlSniff(page: { contentType: string; body: string }): boolean {
  return !page.contentType && /^\s*<(!doctype html|html)/i.test(page.body.slice(0, 512))
}
