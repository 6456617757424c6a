import { approve, deny, type Verdict } from "../verdict.ts"
import type { ProgramRule } from "./program.ts"

/** Cloud CLIs are never allowed without approval; reading secret stores is refused outright. */
const cloud = (refused?: { words: RegExp; why: string }) => (args: readonly string[], name: string) => {
  const words = args.filter((a) => !a.startsWith("-")).join(" ")
  return refused?.words.test(words) ? deny(refused.why) : approve(`${name} commands need approval`)
}

function rule(
  name: string,
  examples: ProgramRule["examples"],
  refused?: { words: RegExp; why: string },
  traits: Partial<ProgramRule> = {},
): ProgramRule {
  const verdict = cloud(refused)
  return { classify: (args) => verdict(args, name), examples, ...traits }
}

function classifyAws(args: readonly string[]): Verdict {
  const words = args.filter((a) => !a.startsWith("-")).join(" ")
  // `--with-decryption` is an option: it is looked for in the whole line.
  if (
    /^secretsmanager get-secret-value|^ssm get-parameters?\b.*--with-decryption/.test(
      `${words} ${args.join(" ")}`,
    )
  )
    return deny("reading secret values from the cloud secret store")
  return approve("aws commands need approval")
}

const SUBCOMMAND: Partial<ProgramRule> = { inputChoosesSubcommand: true }

export const CLOUD: Record<string, ProgramRule> = {
  aws: {
    classify: classifyAws,
    ...SUBCOMMAND,
    examples: {
      ask: ["aws s3 ls"],
      deny: [
        "aws secretsmanager get-secret-value --secret-id x",
        "aws ssm get-parameter --name x --with-decryption",
      ],
    },
  },
  az: rule(
    "az",
    { ask: ["az vm list"], deny: ["az keyvault secret show --name x"] },
    { words: /^keyvault secret (show|download)/, why: "reading secret values from Key Vault" },
    SUBCOMMAND,
  ),
  gcloud: rule(
    "gcloud",
    { ask: ["gcloud compute instances list"], deny: ["gcloud secrets versions access latest --secret=x"] },
    { words: /^secrets versions access/, why: "reading secret values from Secret Manager" },
    SUBCOMMAND,
  ),
  oc: rule("oc", { ask: ["oc get pods"], deny: ["echo get | xargs oc"] }, undefined, SUBCOMMAND),
  argocd: rule("argocd", { ask: ["argocd app list"] }),
  terraform: rule("terraform", { ask: ["terraform plan"] }),
  eksctl: rule("eksctl", { ask: ["eksctl get clusters"] }),
}
