import type { Guards } from "./paths.ts"

/** How deep wrappers and shells may nest (`sudo timeout 5 bash -c '…'`) before dupin refuses. */
export const MAX_DEPTH = 4
/**
 * How many stages one command line may make the policy classify (wrappers are tried at every
 * word when their grammar is unknown): the classification runs on the event loop.
 */
const MAX_CLASSIFIED = 512
/** Arguments of a runner whose grammar dupin does not model: each suffix is tried. */
export const MAX_UNKNOWN_ARGS = 64

/**
 * Where a classification is: how deep in wrappers, how much work is left for the whole line, and
 * the path verdicts already computed (a wrapper's words are checked again as its inner command's).
 */
export type Walk = {
  depth: number
  /** Inside a search for embedded commands: that search does not start again (it would be quadratic). */
  embedded?: boolean
  budget: { left: number; paths: Map<string, { deny?: string; ask?: string }>; guards?: Guards }
}

export const start = (): Walk => ({ depth: 0, budget: { left: MAX_CLASSIFIED, paths: new Map() } })
export const deeper = (walk: Walk): Walk => ({ ...walk, depth: walk.depth + 1 })
