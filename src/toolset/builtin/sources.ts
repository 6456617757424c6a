/**
 * The default YAML toolsets, imported as text so `bun build --compile` embeds them: the binary
 * reads nothing from the build tree at run time. Add one import and one entry per file.
 */
import docker from "../../../toolsets/docker.yaml" with { type: "text" }
import helm from "../../../toolsets/helm.yaml" with { type: "text" }
import kubernetesCore from "../../../toolsets/kubernetes-core.yaml" with { type: "text" }
import kubernetesLiveMetrics from "../../../toolsets/kubernetes-live-metrics.yaml" with { type: "text" }
import kubernetesLogs from "../../../toolsets/kubernetes-logs.yaml" with { type: "text" }
import linuxHost from "../../../toolsets/linux-host.yaml" with { type: "text" }

export type ToolsetSource = { fileName: string; text: string }

const SOURCES: ToolsetSource[] = [
  { fileName: "toolsets/kubernetes-core.yaml", text: kubernetesCore },
  { fileName: "toolsets/kubernetes-logs.yaml", text: kubernetesLogs },
  { fileName: "toolsets/kubernetes-live-metrics.yaml", text: kubernetesLiveMetrics },
  { fileName: "toolsets/helm.yaml", text: helm },
  { fileName: "toolsets/docker.yaml", text: docker },
  { fileName: "toolsets/linux-host.yaml", text: linuxHost },
]

export function builtinToolsetSources(): ToolsetSource[] {
  return SOURCES
}
