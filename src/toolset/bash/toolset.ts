/**
 * The `bash` toolset and its registry entry. Building it loads neither the command grammar nor
 * the policy: BashTool loads them with its first command (bash-tool.ts).
 */
import { Type } from "@sinclair/typebox"
import { Toolset, ToolsetTag } from "../../tool/toolset.ts"
import type { ToolsetFactory } from "../kind.ts"
import { BashTool, type BashToolOptions } from "./bash-tool.ts"
import { kubeconfigCredentialFiles } from "./credential-locations.ts"

/** `toolsets.bash.config`: token-prefix lists that extend the built-in policy. */
export const BashConfigSchema = Type.Object(
  {
    allow: Type.Optional(
      Type.Array(Type.String(), { description: "argv prefixes allowed without approval" }),
    ),
    deny: Type.Optional(Type.Array(Type.String(), { description: "argv prefixes never run, even approved" })),
  },
  { additionalProperties: false },
)

/** The `bash` toolset. Off unless the config enables it (or `ask --bash`). */
export function createBashToolset(options: BashToolOptions & { enabled?: boolean } = {}): Toolset {
  const { enabled = false, ...policy } = options
  return new Toolset({
    name: "bash",
    description: "Run read-only shell pipelines; anything else needs approval",
    enabled,
    tools: [new BashTool(policy)],
    tags: [ToolsetTag.CORE],
    configClasses: [BashConfigSchema],
    config: {
      ...(policy.allow ? { allow: [...policy.allow] } : {}),
      ...(policy.deny ? { deny: [...policy.deny] } : {}),
    },
    llmInstructions:
      "run_bash_command runs one pipeline (at most 16 stages) without a shell: no variables, substitutions, globs, redirections or `;`/`&&`. Reading ordinary files with cat/head/tail/grep/sed/awk/jq needs no approval; credential files (keys, kubeconfigs, /proc/*/environ, /etc/shadow, dupin's own files) are refused even with approval. Prefer the dedicated kubernetes tools when they fit.",
  })
}

/** The registry entry: off unless `toolsets.bash.enabled` (or `ask --bash`, a flag override). */
export const bashToolset: ToolsetFactory = {
  name: "bash",
  configSchema: BashConfigSchema,
  create(settings, context) {
    // The credential files the tools' environment points at are credentials too, wherever they
    // are: KUBECONFIG is a colon-separated list, the others name one file each.
    const env = context.env
    // Without KUBECONFIG kubectl reads ~/.kube/config (itself protected by its folder).
    const kubeconfigs = (env.KUBECONFIG || (env.HOME ? `${env.HOME}/.kube/config` : ""))
      .split(":")
      .filter(Boolean)
    const credentialFiles = [
      ...kubeconfigs,
      // A kubeconfig's token or key file is the credential itself (finding R5).
      ...kubeconfigs.flatMap(kubeconfigCredentialFiles),
      env.GOOGLE_APPLICATION_CREDENTIALS,
      env.AWS_SHARED_CREDENTIALS_FILE,
      env.AWS_CONFIG_FILE,
      env.DOCKER_CONFIG && `${env.DOCKER_CONFIG}/config.json`,
      env.CLOUDSDK_CONFIG,
      env.AZURE_CONFIG_DIR,
    ].filter((path): path is string => Boolean(path))
    return createBashToolset({
      ...(settings.config ?? {}),
      protectedPaths: [...context.protectedPaths, ...credentialFiles],
      enabled: settings.enabled ?? false,
    })
  },
}
