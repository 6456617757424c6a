/** The `{{ env.NAME }}` a config value may hold: one syntax for expanding, naming and finding. */
const ENV_TEMPLATE = /\{\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g

/** The variables `value` names, in order. */
export function envTemplateNames(value: string): string[] {
  return [...value.matchAll(ENV_TEMPLATE)].map((m) => m[1] as string)
}

/** `value` with each `{{ env.NAME }}` replaced by what `lookup` gives for NAME. */
export function replaceEnvTemplates(value: string, lookup: (name: string) => string): string {
  return value.replace(ENV_TEMPLATE, (_, name: string) => lookup(name))
}
