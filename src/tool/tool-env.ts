const PASSTHROUGH = new Set([
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "TZ",
  "TMPDIR",
  "TERM",
  "KUBECONFIG",
  "DOCKER_HOST",
  "DOCKER_CONFIG",
  "DOCKER_CONTEXT",
  "DOCKER_CERT_PATH",
  "DOCKER_TLS_VERIFY",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "AWS_PROFILE",
  "AWS_REGION",
  "AWS_DEFAULT_REGION",
  "AWS_CONFIG_FILE",
  "AWS_SHARED_CREDENTIALS_FILE",
  "CLOUDSDK_CONFIG",
  "GOOGLE_APPLICATION_CREDENTIALS",
  "AZURE_CONFIG_DIR",
])
const PASSTHROUGH_PREFIX = /^(LC_|HELM_|XDG_)/
/** Never handed to a tool, whatever allowed it: provider keys and dupin's own secrets. */
const DENIED = /(_API_KEY|_TOKEN|_SECRET)$|^SVC_/i

/**
 * The explicit environment for tool processes: an allowlist of `source` (normally process.env,
 * passed in by `config/`) plus `extra`. Names that look like credentials are dropped from both,
 * so a provider key can never reach a command the model chose.
 */
export function buildToolEnv(
  source: Record<string, string | undefined>,
  extra: Record<string, string | undefined> = {},
): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined || DENIED.test(name)) continue
    if (PASSTHROUGH.has(name) || PASSTHROUGH_PREFIX.test(name)) env[name] = value
  }
  for (const [name, value] of Object.entries(extra)) {
    if (value !== undefined && !DENIED.test(name)) env[name] = value
  }
  return env
}
