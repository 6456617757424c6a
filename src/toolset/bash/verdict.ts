/**
 * What the policy decides about a command. `allow` runs without asking; `approve` needs a human;
 * `deny` never runs, approved or not.
 */
export type Decision = "allow" | "approve" | "deny"

export type Verdict = { decision: Decision; reason: string }

const RANK: Record<Decision, number> = { allow: 0, approve: 1, deny: 2 }

export const allow = (reason = "read-only"): Verdict => ({ decision: "allow", reason })
export const approve = (reason: string): Verdict => ({ decision: "approve", reason })
export const deny = (reason: string): Verdict => ({ decision: "deny", reason })

/** The most restrictive of the verdicts; the first one wins a tie, so its reason is kept. */
export function worst(...verdicts: Array<Verdict | undefined>): Verdict {
  let result: Verdict | undefined
  for (const v of verdicts) {
    if (v && (!result || RANK[v.decision] > RANK[result.decision])) result = v
  }
  return result ?? allow()
}

/** `verdict`, but never less restrictive than approve (for wrappers such as sudo or xargs). */
export function atLeastApprove(verdict: Verdict, reason: string): Verdict {
  return verdict.decision === "allow" ? approve(reason) : verdict
}
