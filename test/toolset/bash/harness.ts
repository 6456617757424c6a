import {
  chmodSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { StructuredToolResult } from "../../../src/tool/result.ts"
import { DEFAULT_TOOL_LIMITS } from "../../../src/tool/tool.ts"
import { BashTool, type BashToolOptions } from "../../../src/toolset/bash/index.ts"

/** A provider-key canary in the tool environment: no output may ever contain it. */
export const CANARY = "sk-canary-7f3a9b2c"
export const KUBECONFIG_CANARY = "client-key-data: CANARY-KUBECONFIG"
export const SSH_KEY_CANARY = "CANARY-PRIVATE-KEY-9d1e"
export const SHIMMED = ["kubectl", "helm", "docker", "aws", "az", "argocd"]

/**
 * A sandbox for running commands for real: a temp dir, recording stand-ins for the cluster CLIs
 * first on PATH (each logs its argv, one line per call, and answers with a little JSON), and a
 * fake kubeconfig under the sandbox HOME.
 */
export class Sandbox {
  readonly dir = mkdtempSync(join(tmpdir(), "dupin-bash-"))
  readonly bin = join(this.dir, "bin")
  readonly log = join(this.dir, "shim.log")
  readonly home = join(this.dir, "home")
  /** An innocent-looking name that is a symlink to the sandbox HOME's SSH key. */
  readonly keyLink = join(this.dir, "notes.txt")
  /** A second name (hard link) of the same key: no path or name rule can see what it is. */
  readonly hardLink = join(this.dir, "notes-2.txt")
  #n = 0

  constructor() {
    mkdirSync(this.bin)
    mkdirSync(join(this.home, ".kube"), { recursive: true })
    writeFileSync(join(this.home, ".kube", "config"), `apiVersion: v1\n${KUBECONFIG_CANARY}\n`)
    mkdirSync(join(this.home, ".ssh"))
    writeFileSync(join(this.home, ".ssh", "id_ed25519"), `${SSH_KEY_CANARY}\n`)
    symlinkSync(join(this.home, ".ssh", "id_ed25519"), this.keyLink)
    linkSync(join(this.home, ".ssh", "id_ed25519"), this.hardLink)
    writeFileSync(this.log, "")
    for (const name of SHIMMED) {
      const path = join(this.bin, name)
      writeFileSync(
        path,
        `#!/bin/sh\nprintf '%s\\n' "${name} $*" >> '${this.log}'\necho '{"items":[{"name":"shim-${name}"}]}'\n`,
      )
      chmodSync(path, 0o755)
    }
  }

  env(): Record<string, string> {
    return {
      PATH: `${this.bin}:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin`,
      HOME: this.home,
      OPENAI_API_KEY: CANARY,
    }
  }

  /**
   * Fresh per-item paths: a marker that must never appear, a victim that must stay "old\n", and a
   * victim folder whose file must stay.
   */
  fresh(): { marker: string; victim: string; victimDir: string } {
    this.#n++
    const victim = join(this.dir, `victim-${this.#n}`)
    writeFileSync(victim, "old\n")
    const victimDir = join(this.dir, `victim-dir-${this.#n}`)
    mkdirSync(victimDir)
    writeFileSync(join(victimDir, "file"), "old\n")
    return { marker: join(this.dir, `marker-${this.#n}`), victim, victimDir }
  }

  victimDirIntact(victimDir: string): boolean {
    return this.victimIntact(join(victimDir, "file"))
  }

  markerExists(marker: string): boolean {
    return existsSync(marker)
  }

  victimIntact(victim: string): boolean {
    return existsSync(victim) && readFileSync(victim, "utf8") === "old\n"
  }

  shimCalls(): string[] {
    return readFileSync(this.log, "utf8").split("\n").filter(Boolean)
  }

  clearShimLog(): void {
    writeFileSync(this.log, "")
  }

  tool(options: BashToolOptions = {}): BashTool {
    return new BashTool({ cwd: this.dir, ...options })
  }

  async run(
    command: string,
    options: { approved?: boolean; tool?: BashTool } = {},
  ): Promise<StructuredToolResult> {
    const tool = options.tool ?? this.tool()
    const validated = tool.validate({ command })
    if (!validated.ok) throw new Error(validated.error)
    return tool.run(validated.params, {
      signal: new AbortController().signal,
      toolCallId: "call-1",
      limits: { ...DEFAULT_TOOL_LIMITS, timeoutDefault: 10 },
      env: this.env(),
      approved: options.approved ?? false,
    })
  }
}

/** Fills the vector placeholders with this item's paths. */
export function fill(
  command: string,
  paths: {
    marker: string
    victim: string
    home: string
    victimDir?: string
    keyLink?: string
    hardLink?: string
  },
): string {
  return command
    .replaceAll("{{HARDLINK}}", paths.hardLink ?? "")
    .replaceAll("{{HOME}}", paths.home)
    .replaceAll("{{VDIR}}", paths.victimDir ?? "")
    .replaceAll("{{KEYLINK}}", paths.keyLink ?? "")
    .replaceAll("{{M_TOUCH_B64}}", Buffer.from(`touch ${paths.marker}`).toString("base64"))
    .replaceAll("{{M}}", paths.marker)
    .replaceAll("{{VICTIM}}", paths.victim)
    .replaceAll("{{SERVER_PID}}", String(process.pid))
}

/** Text of /etc/shadow when this process can read it (tests then prove it never leaks). */
export function shadowSample(): string | undefined {
  try {
    const line = readFileSync("/etc/shadow", "utf8")
      .split("\n")
      .find((l) => /^[^:]+:[^:*!]{8,}/.test(l))
    return line?.split(":")[1]
  } catch {
    return undefined
  }
}
