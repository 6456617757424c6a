import { echo } from "../agent/echo.ts"
import type { ImageLimits } from "../config/settings.ts"
import { RequestError } from "../errors.ts"
import type { ImagePart } from "../llm/types.ts"

/** A request's `images` element (spec "Image object"), or its short form, a bare URL. */
export type ImageInput =
  | string
  | { url: string; detail?: "low" | "high" | "auto" | undefined; format?: string | undefined }

const DATA_URI = /^data:([^;,]*)((?:;[^;,]*)*),(.*)$/s
const MIME = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/i
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

/**
 * Turns request images into `image_url` content parts, refusing what a provider would choke on
 * later (or worse, fetch): schemes other than http(s) and data, data URIs that are not base64
 * images, and more images or bytes than `limits` allow. Only inline (data URI) bytes count
 * toward the byte limit; a URL's image is fetched by the provider, not carried in the request.
 */
export function toImageParts(images: readonly ImageInput[], limits: ImageLimits): ImagePart[] {
  if (images.length > limits.maxImages) {
    throw new RequestError(
      `Too many images: ${images.length}; at most ${limits.maxImages} per request (limits.max_images).`,
    )
  }
  let totalBytes = 0
  const parts = images.map((image, i): ImagePart => {
    const { url, detail, format } = typeof image === "string" ? { url: image } : image
    const at = `images[${i}]`
    if (format !== undefined && !MIME.test(format)) {
      throw new RequestError(
        `${at}.format must be a MIME type such as image/png, not ${echo(JSON.stringify(format))}.`,
      )
    }
    if (/^data:/i.test(url)) totalBytes += dataUriBytes(url, at)
    else checkRemoteUrl(url, at)
    return {
      type: "image_url",
      image_url: { url, ...(detail ? { detail } : {}), ...(format ? { format } : {}) },
    }
  })
  if (totalBytes > limits.maxImageBytes) {
    throw new RequestError(
      `The images total ${totalBytes} bytes; at most ${limits.maxImageBytes} bytes per request (limits.max_image_bytes).`,
    )
  }
  return parts
}

/** Decoded size of a `data:<mime>;base64,<data>` image; throws when it is not one. */
function dataUriBytes(url: string, at: string): number {
  const match = DATA_URI.exec(url)
  const [, mime = "", params = "", data = ""] = match ?? []
  if (!match || !mime)
    throw new RequestError(`${at} is a data URI without a MIME type; use data:<mime>;base64,<data>.`)
  if (!MIME.test(mime) || !mime.toLowerCase().startsWith("image/")) {
    throw new RequestError(`${at} is a data URI of type ${echo(mime)}, which is not an image type.`)
  }
  if (!params.toLowerCase().split(";").includes("base64")) {
    throw new RequestError(
      `${at} is a data URI that is not base64-encoded; use data:${echo(mime)};base64,<data>.`,
    )
  }
  if (data.length === 0 || data.length % 4 !== 0 || !BASE64.test(data)) {
    throw new RequestError(`${at} is a data URI whose data is not valid base64.`)
  }
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0
  return (data.length / 4) * 3 - padding
}

function checkRemoteUrl(url: string, at: string): void {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new RequestError(`${at} is neither a URL nor a data URI.`)
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new RequestError(
      `${at} uses ${parsed.protocol.replace(/:$/, "")}; only http(s) URLs and data URIs are accepted.`,
    )
  }
}
