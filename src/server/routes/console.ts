import { fileURLToPath } from "node:url"
import page from "../../console/index.html"

/**
 * The web console (CONTRACT §9) as responses. The page is an HTML import: `bun run build` bundles
 * it into the binary (`page.files` lists the embedded outputs); from source (tests, `bun
 * src/main.ts`) the same entry is bundled in memory on the first request. Either way the page is
 * served by our own routes, not Bun's static routes, so every response carries the headers below.
 */

/** Assets live under one prefix so a single route (and the auth exemption) covers them all. */
export const CONSOLE_ASSET_PREFIX = "/console/"

/**
 * No inline script and nothing remote: model text and tool output reach the DOM only as text or
 * sanitized markup, and this policy is the second wall should a sanitizer ever miss something.
 */
const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
}

type Asset = { body: Blob | string; type: string }
type ConsoleBundle = { index: string; assets: ReadonlyMap<string, Asset> }

let bundle: Promise<ConsoleBundle> | undefined

/** Whether `path` is served by the console, so auth lets it through: the page itself needs no token. */
export function isConsolePath(path: string): boolean {
  return path === "/" || path.startsWith(CONSOLE_ASSET_PREFIX)
}

export async function consoleIndex(): Promise<Response> {
  const { index } = await loadBundle()
  return new Response(index, {
    headers: { ...SECURITY_HEADERS, "content-type": "text/html;charset=utf-8", "cache-control": "no-cache" },
  })
}

export async function consoleAsset(name: string): Promise<Response> {
  const asset = (await loadBundle()).assets.get(name)
  if (!asset) return new Response("Not found", { status: 404, headers: SECURITY_HEADERS })
  return new Response(asset.body, {
    // File names carry a content hash: a new binary serves new names.
    headers: {
      ...SECURITY_HEADERS,
      "content-type": asset.type,
      "cache-control": "public, max-age=31536000, immutable",
    },
  })
}

function loadBundle(): Promise<ConsoleBundle> {
  bundle ??= page.files ? embedded(page.files) : bundledNow()
  // A failed in-memory build is retried on the next request rather than cached.
  bundle.catch(() => {
    bundle = undefined
  })
  return bundle
}

type EmbeddedFile = NonNullable<typeof page.files>[number]

async function embedded(files: readonly EmbeddedFile[]): Promise<ConsoleBundle> {
  const assets = new Map<string, Asset>()
  let index = ""
  for (const file of files) {
    const name = baseName(file.path)
    if (file.path.endsWith(".html")) index = await Bun.file(file.path).text()
    else assets.set(name, { body: Bun.file(file.path), type: file.headers["content-type"] })
  }
  return { index: rewriteAssetUrls(index, assets), assets }
}

async function bundledNow(): Promise<ConsoleBundle> {
  const result = await Bun.build({
    entrypoints: [fileURLToPath(new URL("../../console/index.html", import.meta.url))],
    target: "browser",
    minify: true,
  })
  if (!result.success) throw new AggregateError(result.logs, "the console could not be bundled")
  const assets = new Map<string, Asset>()
  let index = ""
  for (const output of result.outputs) {
    if (output.path.endsWith(".html")) index = await output.text()
    else assets.set(baseName(output.path), { body: output, type: output.type })
  }
  return { index: rewriteAssetUrls(index, assets), assets }
}

/** The bundler links assets from the site root; here they live under CONSOLE_ASSET_PREFIX. */
function rewriteAssetUrls(html: string, assets: ReadonlyMap<string, Asset>): string {
  return html.replace(/(src|href)="(?:\.?\/)?([^"/]+)"/g, (whole, attribute: string, name: string) =>
    assets.has(name) ? `${attribute}="${CONSOLE_ASSET_PREFIX}${name}"` : whole,
  )
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1)
}
