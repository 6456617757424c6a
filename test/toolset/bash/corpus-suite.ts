import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { rmSync } from "node:fs"
import { configureContainment, resetContainment } from "../../../src/tool/containment/index.ts"
import { ToolResultStatus } from "../../../src/tool/result.ts"
import { CORPUS as BASE_CORPUS } from "./corpus.ts"
import { PROGRAM_CORPUS } from "./corpus-programs.ts"
import { CANARY, fill, KUBECONFIG_CANARY, Sandbox, SSH_KEY_CANARY, shadowSample } from "./harness.ts"

type Vector = {
  id: string
  command: string
  expect: "block" | "run" | "either"
  class: string
  proof: string[]
  shim?: string[]
}
type VectorFile = { items: Vector[] }

const VECTORS_URL = new URL("./holmesgpt-bash-vectors.json", import.meta.url)
const vectors = ((await Bun.file(VECTORS_URL).json()) as VectorFile).items

const CORPUS = [...BASE_CORPUS, ...PROGRAM_CORPUS]
const shadow = shadowSample()
const RAN = new Set<string>([ToolResultStatus.SUCCESS, ToolResultStatus.NO_DATA])

/** Runs a command without approval and returns what a block must prove. */
async function attempt(sandbox: Sandbox, template: string) {
  const paths = {
    ...sandbox.fresh(),
    home: sandbox.home,
    keyLink: sandbox.keyLink,
    hardLink: sandbox.hardLink,
  }
  const command = fill(template, paths)
  sandbox.clearShimLog()
  const result = await sandbox.run(command)
  const output = `${result.dataText()}\n${result.error ?? ""}`
  return {
    command,
    result,
    output,
    markerCreated: sandbox.markerExists(paths.marker),
    victimIntact: sandbox.victimIntact(paths.victim) && sandbox.victimDirIntact(paths.victimDir),
    shimCalls: sandbox.shimCalls(),
  }
}

function expectNoSecret(output: string): void {
  expect(output).not.toContain(CANARY)
  expect(output).not.toContain(KUBECONFIG_CANARY)
  expect(output).not.toContain(SSH_KEY_CANARY)
  if (shadow) expect(output).not.toContain(shadow)
}

/**
 * The whole corpus, run with containment off (so it tests the validator alone: a host's other
 * processes and dupin's own environment are in view, issue 18.8) and on (what an operator runs).
 * bun runs test files in one process and containment is process-global: each file sets its mode
 * before its tests and restores the default after.
 */
export function corpusSuite(containment: "off" | "auto"): void {
  // One sandbox per run of the suite: the other file's clean-up must not remove this one's.
  const sandbox = new Sandbox()
  // Detecting bubblewrap and removing hundreds of victim files take seconds on a busy host.
  beforeAll(() => {
    configureContainment({ mode: containment })
  }, 60_000)
  afterAll(() => {
    resetContainment()
    rmSync(sandbox.dir, { recursive: true, force: true })
  }, 60_000)

  test("the corpus has at least 150 commands and covers every bypass class", () => {
    expect(CORPUS.length + vectors.length).toBeGreaterThanOrEqual(150)
    const classes = new Set(CORPUS.map((c) => c.class))
    for (const cls of [
      "substitution-in-option-value",
      "separator-glued",
      "newline",
      "ifs-and-variables",
      "glob",
      "here-doc-and-here-string",
      "find-exec",
      "xargs-and-wrappers",
      "awk",
      "sed",
      "kubectl-mutation-and-exec",
      "secret-read",
      "credential-file-read",
      "environment-dump",
    ]) {
      expect(classes.has(cls)).toBe(true)
    }
  })

  describe(`dupin corpus, containment ${containment}`, () => {
    for (const item of CORPUS) {
      test(`${item.expect} [${item.class}] ${JSON.stringify(item.command)}`, async () => {
        const outcome = await attempt(sandbox, item.command)
        expectNoSecret(outcome.output)
        expect(outcome.markerCreated).toBe(false)
        expect(outcome.victimIntact).toBe(true)
        if (item.expect === "block") {
          expect(RAN.has(outcome.result.status)).toBe(false)
          expect(outcome.shimCalls).toEqual([])
        } else {
          expect({ status: outcome.result.status, error: outcome.result.error }).toEqual({
            status: ToolResultStatus.SUCCESS,
            error: null,
          })
        }
      })
    }
  })

  describe(`HolmesGPT vectors, containment ${containment}`, () => {
    for (const item of vectors) {
      test(`${item.id} ${item.expect} [${item.class}] ${JSON.stringify(item.command)}`, async () => {
        const outcome = await attempt(sandbox, item.command)
        expectNoSecret(outcome.output)
        expect(outcome.markerCreated).toBe(false)
        expect(outcome.victimIntact).toBe(true)
        if (item.expect === "block") {
          expect(RAN.has(outcome.result.status)).toBe(false)
          for (const forbidden of item.shim ?? []) expect(outcome.shimCalls).not.toContain(forbidden)
          expect(outcome.shimCalls).toEqual([])
        } else if (item.expect === "run") {
          expect(outcome.result.status).toBe(ToolResultStatus.SUCCESS)
        } else if (!RAN.has(outcome.result.status)) {
          // "either": refusing is fine, but then nothing may have run.
          expect(outcome.shimCalls).toEqual([])
        }
      })
    }
  })
}
