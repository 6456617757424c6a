import { posix } from "node:path"
import { approve, type Verdict } from "../verdict.ts"
import { awkProgramVerdict } from "./awk-program.ts"
import { type ProgramRule, type Scanned, withTraits } from "./program.ts"
import {
  AWK_GRAMMAR,
  awkRunsInput,
  awkWritten,
  SED_GRAMMAR,
  sedRunsInput,
  sedWrites,
  sedWritten,
} from "./sed-awk-texts.ts"
import { sedScriptProblem } from "./sed-script.ts"

/**
 * sed and awk run without approval when their program parses in a small read-only subset
 * (sed-script.ts, awk-program.ts). gsed and nawk are not on the allowlist, but what their
 * programs write or run is read all the same.
 */
const FROM_FILE = "reads its program or names from a file, writes, or walks a tree"

function sedCheck(scan: Scanned): Verdict | undefined {
  const scripts = scan.options
    .filter((o) => o.name === "-e" || o.name === "--expression")
    .map((o) => o.value ?? "")
  if (scripts.length === 0 && scan.operands[0] !== undefined) scripts.push(scan.operands[0])
  const problem = sedScriptProblem(scripts.join("\n"))
  return problem ? approve(`sed script has ${problem}`) : undefined
}

function awkCheck(scan: Scanned): Verdict | undefined {
  const program = scan.operands[0]
  if (program === undefined) return approve("awk without a program on the command line reads one from a file")
  const special = scan.operands.slice(1).find(isGawkSpecialFile)
  if (special !== undefined)
    return approve(
      `gawk opens ${special} as a special file (a network connection or an inherited descriptor)`,
    )
  return awkProgramVerdict(program)
}

/**
 * gawk's special file names (manual, "Special Files"): `/inet/tcp/LPORT/HOST/RPORT` (and `/inet4`,
 * `/inet6`, `udp`) listens on or connects to any port, past the egress guard, even with
 * `--sandbox` (finding R16); `/dev/fd/N` and `/dev/std*` read descriptors dupin did not hand over.
 * gawk compares the name as written; the normalized form is checked too, in case a version does not.
 */
function isGawkSpecialFile(operand: string): boolean {
  return [operand, posix.normalize(operand)].some((name) =>
    /^\/(inet[46]?(\/|$)|dev\/(fd\/|stdin$|stdout$|stderr$))/.test(name),
  )
}

const AWK: Omit<ProgramRule, "examples"> = {
  options: AWK_GRAMMAR,
  check: awkCheck,
  writesNamed: awkWritten,
}

export const SED_AWK: Record<string, ProgramRule> = {
  ...withTraits(
    {
      sed: {
        options: SED_GRAMMAR,
        ask: {
          "-f": FROM_FILE,
          "--file": FROM_FILE,
          "-i": "edits files in place",
          "--in-place": "edits files in place",
        },
        check: sedCheck,
        writes: sedWrites,
        writesNamed: sedWritten,
        runsInput: (args) => sedRunsInput("sed", args),
        safeMode: "GNU sed",
        examples: {
          allow: ["sed -n '/start/,/end/p'", "sed -e 's/a/b/g' -e '/^#/d'"],
          ask: ["sed -n 'l;e id'", "sed 's/a/b/;r /tmp/x'", "sed -i s/a/b/ /tmp/x"],
          deny: ["sed -i s/a/b/ /etc/fstab", "echo 'rm -r /tmp/x' | sed 's/^/ /e'"],
        },
      },
      awk: {
        ...AWK,
        runsInput: (args) => awkRunsInput("awk", args),
        safeMode: "GNU Awk",
        examples: {
          allow: ["awk -F: '{n[$1]++} END {for (k in n) print k, n[k]}'"],
          ask: ["awk '{print > \"/tmp/o\"}'", "awk -f /tmp/prog"],
          deny: ["awk 'BEGIN{print ENVIRON[\"HOME\"]}'", "echo 'rm -r /tmp/x' | awk '{system($0)}'"],
        },
      },
      gawk: {
        ...AWK,
        outputOptions: ["--dump-variables", "--profile", "-d", "-p"],
        runsInput: (args) => awkRunsInput("gawk", args),
        safeMode: "GNU Awk",
        examples: {
          allow: ["gawk '{print $1}' /tmp/x"],
          ask: ["gawk '{print}' /inet/tcp/0/localhost/80"],
          deny: ["echo 'rm -r /tmp/x' | gawk '{print | $0}'", "gawk '{print > \"/etc/x\"}'"],
        },
      },
      mawk: {
        ...AWK,
        runsInput: (args) => awkRunsInput("mawk", args),
        examples: { allow: ["mawk '{print $2}' /tmp/x"], ask: ["mawk '{system(\"id\")}'"] },
      },
    },
    { reads: "files" },
  ),
  gsed: {
    writesNamed: sedWritten,
    runsInput: (args) => sedRunsInput("gsed", args),
    examples: { ask: ["gsed -n p /tmp/x"], deny: ["gsed 'w /etc/x' /tmp/x", "echo 'rm -r /tmp/x' | gsed e"] },
  },
  nawk: {
    writesNamed: awkWritten,
    runsInput: (args) => awkRunsInput("nawk", args),
    examples: { ask: ["nawk '{print}' /tmp/x"], deny: ["nawk '{print > \"/etc/x\"}'"] },
  },
}
