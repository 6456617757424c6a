/**
 * The long-lived sandboxes of this dupin process: one per view and per set of files bound back
 * into it (a different KUBECONFIG gets its own). Started on first use, killed with dupin.
 */
import { HelperSandbox } from "./helper-sandbox.ts"
import type { ContainmentState } from "./index.ts"
import { privateHomeOf, reexposed, type SandboxView } from "./views.ts"

/**
 * Which files a view binds back is a few stat and realpath calls; every run asks. The answer is
 * kept this long per view and KUBECONFIG, so a burst of runs asks the file system once, and a
 * kubeconfig made meanwhile is seen a second later.
 */
const KEY_TTL_MS = 1000

export class SandboxPool {
  readonly #sandboxes = new Map<string, HelperSandbox>()
  readonly #keys = new Map<string, { key: string; at: number }>()
  #hooked = false

  constructor(readonly containment: ContainmentState) {}

  get(view: SandboxView, env: Record<string, string>): HelperSandbox {
    const key = this.#key(view, env)
    let sandbox = this.#sandboxes.get(key)
    if (!sandbox) {
      sandbox = new HelperSandbox(this.containment, view, env, this.containment.totalMemoryBytes)
      this.#sandboxes.set(key, sandbox)
      this.#hook()
    }
    return sandbox
  }

  #key(view: SandboxView, env: Record<string, string>): string {
    const asked = `${view}\u0000${env.KUBECONFIG ?? ""}`
    const now = performance.now()
    const known = this.#keys.get(asked)
    if (known && now - known.at < KEY_TTL_MS) return known.key
    const home = view === "read-only" ? privateHomeOf(this.containment) : null
    const key = `${view}\u0000${reexposed(env, this.containment, home).join("\u0000")}`
    // Bounded: a distinct KUBECONFIG per run would otherwise grow the map for ever.
    if (this.#keys.size >= 64) this.#keys.clear()
    this.#keys.set(asked, { key, at: now })
    return key
  }

  /** The sandboxes started so far (tests, operators). */
  get sandboxes(): HelperSandbox[] {
    return [...this.#sandboxes.values()]
  }

  /** Kills every sandbox (and so every process in it) at once. */
  stop(): void {
    for (const sandbox of this.#sandboxes.values()) sandbox.stop()
  }

  dispose(): void {
    for (const sandbox of this.#sandboxes.values()) sandbox.dispose()
    this.#sandboxes.clear()
  }

  /** bwrap's --die-with-parent covers a killed dupin; an orderly exit stops them at once. */
  #hook(): void {
    if (this.#hooked) return
    this.#hooked = true
    process.once("exit", () => {
      for (const sandbox of this.#sandboxes.values()) sandbox.stop()
    })
  }
}
