import { approve, deny, type Verdict } from "../verdict.ts"

/** Cloud CLIs are never allowed without approval; reading secret stores is refused outright. */
export function classifyCloud(name: string, args: readonly string[]): Verdict {
  const words = args.filter((a) => !a.startsWith("-")).join(" ")
  if (
    name === "aws" &&
    /^secretsmanager get-secret-value|^ssm get-parameters?\b.*--with-decryption/.test(
      `${words} ${args.join(" ")}`,
    )
  ) {
    return deny("reading secret values from the cloud secret store")
  }
  if (name === "az" && /^keyvault secret (show|download)/.test(words))
    return deny("reading secret values from Key Vault")
  if (name === "gcloud" && /^secrets versions access/.test(words))
    return deny("reading secret values from Secret Manager")
  return approve(`${name} commands need approval`)
}
