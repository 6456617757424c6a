import type { RequestQuota } from "./containment/request-quota.ts"
import type { SandboxView } from "./containment/views.ts"
import type { ToolContext } from "./tool.ts"

/**
 * Where a tool's processes run for this call: a call a human approved gets the writable view
 * (CONTRACT §5: what was approved takes effect), every other call the read-only one; both count
 * against the request's quota.
 */
export function spawnScope(context: ToolContext): { view: SandboxView; quota?: RequestQuota } {
  return {
    view: context.approved ? "writable" : "read-only",
    ...(context.quota ? { quota: context.quota } : {}),
  }
}
