import { html } from "./html.ts"
import type { Metadata } from "./types.ts"

const ROLES: ReadonlyArray<[string, string]> = [
  ["system_tokens", "system"],
  ["user_tokens", "user"],
  ["assistant_tokens", "assistant"],
  ["tools_to_call_tokens", "tool calls"],
  ["other_tokens", "tool results"],
  ["tools_tokens", "tool definitions"],
]

/** How full the model's context window is, by role, from the latest metadata. */
export function ContextMeter({ metadata }: { metadata: Metadata | undefined }) {
  const total = metadata?.tokens?.total_tokens
  const max = metadata?.max_tokens
  if (typeof total !== "number" || typeof max !== "number" || max <= 0) return null
  const pct = Math.round((total / max) * 100)
  const byRole = ROLES.map(([key, label]) => `${label} ${metadata?.tokens?.[key] ?? 0}`).join(", ")
  return html`
    <div class="context-meter" title=${byRole}>
      <label>
        Context ${pct}%
        <meter aria-label="Context window" min="0" max=${max} value=${total} high=${max * 0.8}></meter>
      </label>
      <span class="tokens">${total.toLocaleString()} / ${max.toLocaleString()} tokens</span>
    </div>
  `
}
