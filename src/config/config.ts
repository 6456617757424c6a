/**
 * Settings only: this folder validates and holds what the operator configured, and builds nothing
 * that runs (the runtime module turns a Config into toolsets, an executor and an engine).
 */
import { resolve } from "node:path"
import type { ContextSettings } from "../context/limits.ts"
import { ConfigError, RequestError } from "../errors.ts"
import type { ModelOverrides } from "../llm/catalog.ts"
import type { CreateChatModelOptions as ChatModelInit } from "../llm/model-factory.ts"
import { type EndpointInput, resolveEndpoint } from "../llm/providers.ts"
import { addSecretValues } from "../redact-values.ts"
import type { ToolLimits } from "../tool/tool.ts"
import type { Toolset } from "../tool/toolset.ts"
import { type AlertSettings, alertSettings, type StoreSettings, storeSettings } from "./alerts.ts"
import { contextSettingsFromEnv, type Env, expandEnv, parseEnabledPrompts, processEnv } from "./env.ts"
import { readConfigFile } from "./file.ts"
import { resolveConfigPath, resolveConfigPaths } from "./paths.ts"
import type { PromptSection } from "./prompt-sections.ts"
import type { ConfigFile, FollowUpAction, ModelEntry } from "./schema.ts"
import { configuredSecretValues } from "./secret-values.ts"
import { type SecuritySettings, securitySettings } from "./security.ts"
import {
  DEFAULT_FOLLOW_UP_ACTIONS,
  DEFAULT_MAX_STEPS,
  type ImageLimits,
  imageLimits,
  knownServerSecrets,
  type ServerSettings,
  serverSettings,
  toolLimits,
} from "./settings.ts"

/** Library options (CONTRACT §7), camelCase over the config file's snake_case keys. */
export type ConfigInit = {
  apiKey?: string
  apiBase?: string
  apiVersion?: string
  /** Context window of `model` when it is a provider id (the catalog's value otherwise). */
  contextWindow?: number
  /** Output reservation of `model` when it is a provider id. */
  maxOutputTokens?: number
  /** A provider/model id, or a modelList key. */
  model?: string
  maxSteps?: number
  /** Paths of YAML toolset files. */
  customToolsets?: string[]
  /** Toolset instances loaded next to the built-in ones. */
  additionalToolsets?: Toolset[]
  /** Inline toolset overrides or definitions (`toolsets:` of the config file). */
  toolsets?: Record<string, unknown>
  /** `mcp_servers:` of the config file (CONTRACT §8), raw until the MCP toolset kind checks it. */
  mcpServers?: Record<string, unknown>
  clusterName?: string
  systemPromptAdditions?: string
  /** Folders of runbooks. */
  runbooks?: string[]
  modelList?: Record<string, ModelEntry>
  followUpActions?: FollowUpAction[]
  limits?: ConfigFile["limits"]
  server?: ConfigFile["server"]
  /** Tool containment (`security:`); see `applyContainment`. */
  security?: ConfigFile["security"]
  /** Alert investigations and their store (CONTRACT §10). */
  alerts?: ConfigFile["alerts"]
  store?: ConfigFile["store"]
  /** The config file this came from: hidden from tool processes. */
  configFile?: string
  /** Enables the bash toolset (the CLI's `--bash`). */
  enableBash?: boolean
  /** The environment to read keys and settings from; defaults to the process environment. */
  env?: Env
}

/** A Config subclass's constructor, so `loadFromFile` on a subclass returns that subclass. */
type ConfigClass<C extends Config> = (new (
  init?: ConfigInit,
) => C) & {
  explainFileError(error: ConfigError, path: string, env: Env): ConfigError
}

/**
 * Everything dupin needs, validated once and then read-only. Construct it directly (library), from
 * a YAML file (`loadFromFile`) or from the environment (`loadFromEnv`).
 */
export class Config {
  readonly model: string | undefined
  readonly maxSteps: number
  readonly clusterName: string | undefined
  readonly systemPromptAdditions: string | undefined
  readonly modelList: Readonly<Record<string, ModelEntry>> | undefined
  readonly followUpActions: readonly FollowUpAction[]
  readonly toolLimits: ToolLimits
  readonly imageLimits: ImageLimits
  readonly server: ServerSettings
  readonly security: SecuritySettings
  readonly alerts: AlertSettings
  readonly store: StoreSettings
  readonly context: ContextSettings
  /** `ENABLED_PROMPTS`, undefined when unrestricted. */
  readonly enabledPrompts: ReadonlySet<PromptSection> | undefined
  /** `toolsets:`: per-toolset overrides and whole new YAML toolsets, raw until assembled. */
  readonly toolsets: Readonly<Record<string, unknown>>
  /** `mcp_servers:`: MCP servers as toolsets, raw until assembled. */
  readonly mcpServers: Readonly<Record<string, unknown>>
  /** Paths of custom YAML toolset files. */
  readonly customToolsets: readonly string[]
  readonly additionalToolsets: readonly Toolset[]
  /** Folders of runbooks. */
  readonly runbooks: readonly string[]
  /** The CLI's `--bash`: the bash toolset on, whatever the files say. */
  readonly enableBash: boolean
  /** The config file this came from, if any. */
  readonly configFile: string | undefined
  /** The environment keys and settings are read from (tool processes get a filtered copy). */
  readonly env: Env
  readonly #init: ConfigInit

  constructor(init: ConfigInit = {}) {
    const env = init.env ?? processEnv()
    this.#init = init
    this.env = env
    this.model = init.model ?? (env.MODEL || undefined)
    this.maxSteps = init.maxSteps ?? DEFAULT_MAX_STEPS
    if (!Number.isInteger(this.maxSteps) || this.maxSteps < 1) {
      throw new ConfigError(`max_steps must be a positive integer, not ${init.maxSteps}.`, "max_steps")
    }
    this.clusterName = init.clusterName
    this.systemPromptAdditions = init.systemPromptAdditions
    this.modelList = init.modelList && Object.keys(init.modelList).length > 0 ? init.modelList : undefined
    if (this.modelList && this.model && !this.modelList[this.model]) {
      throw new ConfigError(
        `model: ${this.model} is not a modelList key. Use one of: ${Object.keys(this.modelList).join(", ")}.`,
        "model",
      )
    }
    this.followUpActions = init.followUpActions ?? DEFAULT_FOLLOW_UP_ACTIONS
    this.toolLimits = toolLimits(init.limits)
    this.imageLimits = imageLimits(init.limits)
    this.server = serverSettings(init.server, env, init.configFile)
    // Every path the operator names: `~` expanded, relative ones read from the config file's folder.
    const paths = (list: readonly string[] | undefined) => resolveConfigPaths(list, init.configFile, env)
    this.security = securitySettings(
      init.security && { ...init.security, hidden_paths: paths(init.security.hidden_paths) },
      init.configFile,
      paths(init.customToolsets),
    )
    this.alerts = alertSettings(init.alerts)
    this.store = storeSettings(
      init.store?.path
        ? { ...init.store, path: resolveConfigPath(init.store.path, init.configFile, env) }
        : init.store,
      env,
    )
    this.context = contextSettingsFromEnv(env, init.limits?.tool_definitions_budget_pct)
    this.enabledPrompts = parseEnabledPrompts(env.ENABLED_PROMPTS)
    this.toolsets = init.toolsets ?? {}
    this.mcpServers = init.mcpServers ?? {}
    this.customToolsets = paths(init.customToolsets) ?? []
    this.additionalToolsets = init.additionalToolsets ?? []
    this.runbooks = paths(init.runbooks) ?? []
    this.enableBash = init.enableBash ?? false
    this.configFile = init.configFile
    // Known before any tool runs or any line is logged: hidden by value everywhere from now on.
    addSecretValues(
      configuredSecretValues(env, [init.apiKey], this.modelList, knownServerSecrets(this.server), {
        toolsets: init.toolsets,
        mcpServers: init.mcpServers,
        store: init.store,
        alerts: init.alerts,
      }),
    )
  }

  /** Loads a YAML config file; `overrides` win over the file's values. */
  static loadFromFile<C extends Config>(this: ConfigClass<C>, path: string, overrides: ConfigInit = {}): C {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass, whose explainFileError applies
    return new this(initFromFile(path, overrides, this.explainFileError))
  }

  /** `SVC_CONFIG_PATH` when set, else the model from `MODEL` and keys from the environment. */
  static loadFromEnv<C extends Config>(this: ConfigClass<C>, env: Env = processEnv()): C {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass, whose explainFileError applies
    const explain = this.explainFileError
    return new this(env.SVC_CONFIG_PATH ? initFromFile(env.SVC_CONFIG_PATH, { env }, explain) : { env })
  }

  /**
   * What a config file that fails its schema is reported as. Settings alone can only name the
   * file's own problems; the runtime's Config adds its toolsets' (runtime/toolset-problems.ts).
   */
  static explainFileError(error: ConfigError, _path: string, _env: Env): ConfigError {
    return error
  }

  /** Names callers may pass as `model`: the modelList keys, or the single configured model. */
  modelNames(): string[] {
    if (this.modelList) return Object.keys(this.modelList)
    return this.model ? [this.model] : []
  }

  /**
   * What the chat model for a request is built from (the runtime builds it: runtime/models.ts).
   * With a modelList only its keys are accepted (spec rule 2), so passing the underlying provider
   * id is refused with the list of valid names.
   */
  modelInit(name?: string, options: { providerId?: boolean } = {}): ChatModelInit {
    const key = name ?? this.model ?? (this.modelList ? Object.keys(this.modelList)[0] : undefined)
    if (!key) {
      throw new ConfigError(
        "No model configured: pass --model, set MODEL, or set model: in the config file.",
        "model",
      )
    }
    // `providerId`: without a modelList, any provider/model id, as `--model` takes it (the CLI's
    // `/model`); a request's model stays one of modelNames (spec rule 2).
    const anyId = options.providerId === true && !this.modelList
    if (name !== undefined && !anyId && !this.modelNames().includes(name)) {
      throw new RequestError(
        `Unknown model "${name.length > 80 ? `${name.slice(0, 80)}…` : name}". Available models: ${this.modelNames().join(", ")}.`,
      )
    }
    const entry = this.modelList?.[key]
    return {
      ...this.#endpointInput(key),
      name: key,
      ...(entry ? { temperature: entry.temperature ?? undefined } : {}),
      overrides: this.modelOverrides(key),
      env: this.env,
      secrets: this.#processSecrets(),
    }
  }

  /**
   * What the config says over the catalog for the model `name`: its modelList entry's values, or
   * for the single model the top-level `context_window`/`max_output_tokens`.
   */
  modelOverrides(name: string): ModelOverrides {
    const entry = this.modelList?.[name]
    if (!entry)
      return { contextWindow: this.#init.contextWindow, maxOutputTokens: this.#init.maxOutputTokens }
    return {
      contextWindow: entry.context_window ?? undefined,
      maxOutputTokens: entry.max_output_tokens ?? undefined,
      supportsVision: entry.supports_vision ?? undefined,
      inputCostPerToken: entry.input_cost_per_token ?? undefined,
      outputCostPerToken: entry.output_cost_per_token ?? undefined,
    }
  }

  /**
   * Why the model `name` (a `modelNames()` entry) cannot be called, judged from the settings alone
   * (provider known, key present where the provider needs one, `{{ env.X }}` set, Azure endpoint);
   * undefined when it can. Calls no provider: `/readyz` and the start-up warning use it.
   */
  modelProblem(name: string): string | undefined {
    try {
      resolveEndpoint(this.#endpointInput(name), this.env)
      return undefined
    } catch (error) {
      if (error instanceof ConfigError) return error.message
      throw error
    }
  }

  /** The model's id, key, endpoint and API version, with `{{ env.X }}` expanded (ConfigError if unset). */
  #endpointInput(key: string): EndpointInput {
    const entry = this.modelList?.[key]
    // The file too, as every other config error says it (server secrets, toolsets).
    const where = `${this.configFile ? `${this.configFile}: ` : ""}${entry ? `modelList.${key}` : "model"}`
    const expand = (v: string | null | undefined, k: string) =>
      v ? expandEnv(v, this.env, `${where}.${k}`) : undefined
    const raw = entry
      ? { id: entry.model, apiKey: entry.api_key, apiBase: entry.api_base, apiVersion: entry.api_version }
      : { id: key, apiKey: this.#init.apiKey, apiBase: this.#init.apiBase, apiVersion: this.#init.apiVersion }
    return {
      id: raw.id,
      apiKey: expand(raw.apiKey, "api_key"),
      apiBase: expand(raw.apiBase, "api_base"),
      apiVersion: expand(raw.apiVersion, "api_version"),
    }
  }

  /** Secrets besides a model's own key that provider error texts must never carry back out. */
  #processSecrets(): string[] {
    return knownServerSecrets(this.server)
  }
}

/** A YAML config file as constructor options; `overrides` win over the file's values. */
function initFromFile(
  path: string,
  overrides: ConfigInit,
  explain: (error: ConfigError, path: string, env: Env) => ConfigError,
): ConfigInit {
  const env = overrides.env ?? processEnv()
  let file: ReturnType<typeof readConfigFile>
  try {
    file = readConfigFile(path)
  } catch (error) {
    throw error instanceof ConfigError ? explain(error, path, env) : error
  }
  const init: ConfigInit = {
    ...(file.model ? { model: file.model } : {}),
    ...(file.api_key ? { apiKey: file.api_key } : {}),
    ...(file.api_base ? { apiBase: file.api_base } : {}),
    ...(file.api_version ? { apiVersion: file.api_version } : {}),
    ...(file.context_window ? { contextWindow: file.context_window } : {}),
    ...(file.max_output_tokens ? { maxOutputTokens: file.max_output_tokens } : {}),
    ...(file.max_steps ? { maxSteps: file.max_steps } : {}),
    ...(file.cluster_name ? { clusterName: file.cluster_name } : {}),
    ...(file.system_prompt_additions ? { systemPromptAdditions: file.system_prompt_additions } : {}),
    ...(file.custom_toolsets ? { customToolsets: file.custom_toolsets } : {}),
    ...(file.runbooks ? { runbooks: file.runbooks } : {}),
    ...(file.toolsets ? { toolsets: file.toolsets } : {}),
    ...(file.mcp_servers ? { mcpServers: file.mcp_servers } : {}),
    ...(file.modelList ? { modelList: file.modelList } : {}),
    ...(file.follow_up_actions ? { followUpActions: file.follow_up_actions } : {}),
    ...(file.limits ? { limits: file.limits } : {}),
    ...(file.security ? { security: file.security } : {}),
    ...(file.server ? { server: file.server } : {}),
    ...(file.alerts ? { alerts: file.alerts } : {}),
    ...(file.store ? { store: file.store } : {}),
    configFile: resolve(path),
  }
  return { ...init, ...overrides, env }
}
