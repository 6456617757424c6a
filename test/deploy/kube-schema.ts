/**
 * Validates rendered Kubernetes objects against the Kubernetes API's own OpenAPI definitions,
 * vendored in deploy/kubernetes/schemas/kubernetes.json (deploy/kubernetes/schemas/vendor.ts says
 * how they are cut from the spec), with `@cfworker/json-schema`, strict as `kubeconform -strict`
 * is: a field the API does not define is an error (a typo such as `readOnlyRootFilesytem` would
 * otherwise be dropped by the API server without a word, and the pod would run with a writable
 * root), and so are wrong types, missing required fields, out-of-range integers and an unknown kind.
 */
import { type OutputUnit, type Schema, Validator } from "@cfworker/json-schema"
import vendored from "../../deploy/kubernetes/schemas/kubernetes.json"

type Json = Record<string, unknown>
export type Manifest = {
  apiVersion: string
  kind: string
  metadata: { name: string }
  [key: string]: unknown
}

const INT32 = { minimum: -(2 ** 31), maximum: 2 ** 31 - 1 }
const INT64 = { minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER }

/**
 * The spec's definitions made strict, the same rewrites kubeconform's schemas carry: an object
 * with declared properties accepts no other; int-or-string and quantities take a number or a
 * string (YAML writes `port: 5050` and `cpu: 1`); int32/int64 formats become ranges.
 */
function strict(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(strict)
  if (schema === null || typeof schema !== "object") return schema
  const out: Json = {}
  for (const [key, value] of Object.entries(schema as Json)) {
    if (key.startsWith("x-kubernetes-")) continue
    out[key] = key === "properties" ? mapValues(value as Json, strict) : strict(value)
  }
  if (out.properties && out.additionalProperties === undefined) out.additionalProperties = false
  if (out.format === "int32") Object.assign(out, INT32)
  if (out.format === "int64") Object.assign(out, INT64)
  return out
}

function mapValues(object: Json, f: (value: unknown) => unknown): Json {
  return Object.fromEntries(Object.entries(object).map(([key, value]) => [key, f(value)]))
}

const numberOrString = { type: ["string", "number"] }
const definitions = {
  ...mapValues(vendored.definitions as Json, strict),
  "io.k8s.apimachinery.pkg.util.intstr.IntOrString": { type: ["string", "integer"] },
  "io.k8s.apimachinery.pkg.api.resource.Quantity": numberOrString,
}
const kinds = vendored.kinds as Record<string, string>
const validators = new Map<string, Validator>()

/** The Kubernetes release the vendored definitions come from. */
export const KUBERNETES_VERSION = vendored.kubernetes

/** Throws with every error (path and reason) when `manifest` is not a valid object of its kind. */
export function validateManifest(manifest: Manifest): void {
  const key = `${manifest.apiVersion}/${manifest.kind}`
  const name = kinds[key]
  if (!name) throw new Error(`no schema for ${manifest.apiVersion} ${manifest.kind}`)
  let validator = validators.get(key)
  if (!validator) {
    const schema = { $ref: `#/definitions/${name}`, definitions } as Schema
    validator = new Validator(schema, "4", false)
    validators.set(key, validator)
  }
  const result = validator.validate(manifest)
  if (result.valid) return
  throw new Error(`${manifest.kind} ${manifest.metadata?.name}: ${leaves(result.errors).join("; ")}`)
}

/** The errors that say what is wrong, without the "a property of X failed" chain above them. */
function leaves(errors: OutputUnit[]): string[] {
  const chain = new Set(["properties", "items", "$ref", "false"])
  const specific = errors.filter((e) => !chain.has(e.keyword))
  return [...new Set((specific.length ? specific : errors).map((e) => `${e.instanceLocation} ${e.error}`))]
}
