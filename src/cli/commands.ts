import type { OptionSpecs, ParsedArgs } from "../commands/args.ts"

/** A command's implementation: resolves to the process exit code. */
export type CommandRun = (args: ParsedArgs) => Promise<number>

/**
 * The command table: options and help live here, implementations are loaded only when chosen, so
 * `dupin version` or `dupin ask --help` never evaluates the server or the engine.
 */
export type CommandEntry = {
  summary: string
  options: OptionSpecs
  help: string
  load: () => Promise<CommandRun>
}

const CONFIG_HELP = `  --config FILE       config file (default: $SVC_CONFIG_PATH, else
                      $XDG_CONFIG_HOME/dupin/config.yaml, i.e. ~/.config/dupin/config.yaml, if it
                      exists; without one, --model or $MODEL)`

/** Where a first run fails: no model, no key. Named in every help that talks to a provider. */
const MODEL_HELP = `Model and key: dupin init writes a starter config (~/.config/dupin/config.yaml); or set MODEL
and the provider's key variable: OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY,
OPENROUTER_API_KEY, DEEPSEEK_API_KEY, XAI_API_KEY, GROQ_API_KEY, MISTRAL_API_KEY, AZURE_API_KEY
(ollama/... and a model with api_base need none).`

/**
 * The command table. `serve` is the HTTP face's command: its implementation is handed in by the
 * entry point (`src/main.ts`), so the CLI never imports the server.
 */
export function commandTable(loadServe: () => Promise<CommandRun>): Record<string, CommandEntry> {
  return {
    ask: {
      summary: "Ask one question, answer on stdout, then follow-ups on a terminal",
      options: {
        config: { type: "string" },
        model: { type: "string" },
        file: { type: "string", short: "f", multiple: true },
        json: { type: "boolean" },
        yes: { type: "boolean", short: "y" },
        "no-interactive": { type: "boolean" },
        "no-color": { type: "boolean" },
        "max-steps": { type: "string" },
        "toolset-file": { type: "string", multiple: true },
        bash: { type: "boolean" },
      },
      help: `Usage: dupin ask [QUESTION] [options]

Investigates QUESTION with the enabled toolsets. Progress (each tool call, its duration and
status) goes to stderr, the markdown answer to stdout. Piped stdin is attached as context.
On a terminal, tools that need approval ask y/N, and follow-up questions are read after the
answer, with line editing and history ($XDG_STATE_HOME/dupin/history); /help lists the commands
and keys. exit (or Ctrl+D) quits, clear starts over, /show N pages a tool's full output, /model NAME
switches model. A paste is one question; Alt+Enter or a trailing \\ continues a line. Ctrl+C stops
the current run; twice within 2 s exits.

Options:
${CONFIG_HELP}
  --model NAME        model: a modelList key, or a provider/model id (e.g. openai/gpt-4.1)
  -f, --file FILE     attach a file as context (repeatable)
  --json              print the API response body (analysis, conversation_history, tool_calls,
                      follow_up_actions, metadata) instead of the answer; no follow-ups
  -y, --yes           approve every tool call that asks (the hard-deny list still applies)
  --no-interactive    exit after the answer, even on a terminal
  --no-color          no colour and raw markdown on a terminal (like NO_COLOR=1)
  --max-steps N       at most N model calls (default: config max_steps, or 100)
  --toolset-file FILE load a YAML toolset file (repeatable)
  --bash              enable the bash toolset (run_bash_command)

Examples:
  dupin ask "why is the checkout pod restarting?" --model openai/gpt-4.1
  kubectl logs deploy/api --tail=200 | dupin ask "what is failing here?"
  dupin ask "is nginx healthy?" -f /etc/nginx/nginx.conf --no-interactive
  dupin ask "restart the stuck worker" --toolset-file ./ops.yaml --yes --json > run.json

Without a terminal and without --yes, calls that need approval are denied and the model is told.
${MODEL_HELP}
Exit codes: 0 answered, 1 provider or tool failure, 2 usage or config error, 130 interrupted.`,
      load: async () => (await import("./commands/ask.ts")).askCommand,
    },
    serve: {
      summary: "Run the HTTP API server",
      options: {
        config: { type: "string" },
        host: { type: "string" },
        port: { type: "string" },
        insecure: { type: "boolean" },
        "no-console": { type: "boolean" },
      },
      help: `Usage: dupin serve [options]

Serves the HTTP API (POST /api/chat, GET /api/model, /healthz, /readyz, /metrics), AG-UI at
POST /api/agui, the Alertmanager receiver at POST /api/alerts/alertmanager when alerts.enabled
(docs/alerts.md), and the web console at / (open the URL in a browser).

Options:
${CONFIG_HELP}
  --host H            listen address (default: $SVC_HOST, server.host, or 127.0.0.1)
  --port P            listen port (default: $SVC_PORT, server.port, or 5050)
  --insecure          allow a non-loopback address without an auth token
  --no-console        do not serve the web console (GET / is then 404; also server.console: false)

A non-loopback address needs server.auth_token (or $SVC_AUTH_TOKEN) unless --insecure is given.
${MODEL_HELP}

Examples:
  dupin serve --config /etc/dupin/config.yaml
  SVC_AUTH_TOKEN=$(openssl rand -hex 32) dupin serve --host 0.0.0.0 --port 8080
  MODEL=openai/gpt-4.1-mini dupin serve`,
      load: loadServe,
    },
    eval: {
      summary: "Score dupin on test cases (HolmesGPT's fixture format) with one or more models",
      options: {
        config: { type: "string" },
        model: { type: "string" },
        judge: { type: "string" },
        iterations: { type: "string" },
        tags: { type: "string" },
        json: { type: "boolean" },
        parallel: { type: "string" },
        timeout: { type: "string" },
      },
      help: `Usage: dupin eval DIR... [options]

Runs each case (a folder with test_case.yaml, or a folder of such folders) through the agent with
its tools answered from the case's mock files, then has a judge model score the answer against
expected_output. Progress goes to stderr as cases finish; the report (pass rate, p50/p95 latency,
tokens, cost and tool calls per case, per model and per tag) to stdout. See docs/eval.md.

Options:
${CONFIG_HELP}
  --model A,B         models to evaluate (default: the configured model)
  --judge NAME        model that scores the answers (default: the first --model)
  --iterations N      run every case N times per model (default: 1)
  --tags T,U          only cases with one of these tags
  --json              print every run (answers, judge reasoning) as JSON instead of the table
  --parallel N        runs in flight at once (default: 4)
  --timeout SECONDS   deadline of one case (default: 300)

Examples:
  dupin eval evals/ --model openai/gpt-4.1
  dupin eval evals/ --model openai/gpt-4.1,anthropic/claude-sonnet-4 --judge openai/gpt-4.1 --iterations 3
  dupin eval ~/holmesgpt/tests/llm/fixtures/test_ask_holmes --tags kubernetes --json > run.json

Exit codes: 0 the cases ran (whatever the score), 2 a bad fixture, option or config, 130 interrupted.`,
      load: async () => (await import("./commands/eval.ts")).evalCommand,
    },
    investigate: {
      summary: "Investigate an alert (Alertmanager webhook body or one alert) in the terminal",
      options: {
        config: { type: "string" },
        model: { type: "string" },
        json: { type: "boolean" },
        "no-color": { type: "boolean" },
        "max-steps": { type: "string" },
        "toolset-file": { type: "string", multiple: true },
        bash: { type: "boolean" },
      },
      help: `Usage: dupin investigate FILE|- [options]

Runs the investigation dupin serve starts for an Alertmanager alert (docs/alerts.md), here and now:
progress on stderr as with ask, the analysis on stdout. FILE is an Alertmanager webhook body (each
firing alert is investigated) or one alert as JSON; - reads stdin. Nothing is queued, stored or
delivered, and calls that need approval are refused, as in the background.

Options:
${CONFIG_HELP}
  --model NAME        model (default: alerts.model, else the default model)
  --json              print the investigation record (as GET /api/investigations/{id})
  --no-color          no colour and raw markdown on a terminal
  --max-steps N       at most N model calls (default: config max_steps, or 100)
  --toolset-file FILE load a YAML toolset file (repeatable)
  --bash              enable the bash toolset (run_bash_command)

Examples:
  dupin investigate alert.json
  amtool alert query -o json | jq '.[0]' | dupin investigate - --json

Exit codes: 0 investigated, 1 the investigation failed, 2 usage or config error, 130 interrupted.`,
      load: async () => (await import("./commands/investigate.ts")).investigateCommand,
    },
    toolsets: {
      summary: "List toolsets and their status (list), or re-run their prerequisites (check)",
      options: {
        config: { type: "string" },
        json: { type: "boolean" },
        "toolset-file": { type: "string", multiple: true },
      },
      help: `Usage: dupin toolsets [list|check] [options]

list (default) shows each toolset's name, status (enabled, disabled, failed), error and when its
prerequisites were checked. check forgets earlier results and runs every prerequisite again.

Options:
${CONFIG_HELP}
  --toolset-file FILE load a YAML toolset file too (repeatable): check a HolmesGPT file before
                      adding it to custom_toolsets
  --json              print a JSON array instead of a table

Examples:
  dupin toolsets
  dupin toolsets check --toolset-file ./holmes/cilium.yaml
  dupin toolsets check --config /etc/dupin/config.yaml
  dupin toolsets list --json | jq '.[] | select(.status == "failed")'`,
      load: async () => (await import("./commands/toolsets.ts")).toolsetsCommand,
    },
    models: {
      summary: "List the model names callers may use",
      options: { config: { type: "string" }, json: { type: "boolean" } },
      help: `Usage: dupin models [options]

Lists the names accepted as a request's model (the modelList keys, or the single configured model)
with the provider model id and context window of each.

Options:
${CONFIG_HELP}
  --json              print {"model_name": [...], "models": [...]} instead of a table

Examples:
  dupin models --config /etc/dupin/config.yaml
  MODEL=anthropic/claude-sonnet-4 dupin models --json`,
      load: async () => (await import("./commands/models.ts")).modelsCommand,
    },
    init: {
      summary: "Write a commented starter config (~/.config/dupin/config.yaml)",
      options: {
        config: { type: "string" },
        provider: { type: "string" },
        model: { type: "string" },
        "api-base": { type: "string" },
        "api-key-env": { type: "string" },
        "context-window": { type: "string" },
      },
      help: `Usage: dupin init [--config FILE] [--provider P] [--model ID] [--api-base URL] [...]

Writes a commented starter config to $XDG_CONFIG_HOME/dupin/config.yaml (~/.config/dupin/config.yaml
when XDG_CONFIG_HOME is unset), where every command looks when neither --config nor
$SVC_CONFIG_PATH is given. An existing file is never overwritten (exit 2, before any question).
On a terminal, without flags, it asks which provider to use, or the URL, model, key variable and
context window of an OpenAI-compatible server of your own; otherwise it writes an OpenAI config.
The key is read from the environment ({{ env.OPENAI_API_KEY }}), never stored. A model behind
--api-base needs no key unless --api-key-env names one. The file is 0600, its folder 0700.

Options:
  --config FILE         write here instead (default: $SVC_CONFIG_PATH, else the path above)
  --provider P          openai, anthropic, gemini, openrouter, deepseek, xai, ollama, or
                        openai-compatible (a server of your own: needs --api-base and --model)
  --model ID            the model (provider/model, or the name a server serves)
  --api-base URL        an OpenAI-compatible endpoint (vLLM, LiteLLM, llama.cpp, LM Studio)
  --api-key-env VAR     the variable holding the key (default: the provider's, none for a server)
  --context-window N    the context window in tokens the server serves

Key variables: OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY, OPENROUTER_API_KEY,
DEEPSEEK_API_KEY, XAI_API_KEY (ollama and a server of your own need none).

Examples:
  dupin init && export OPENAI_API_KEY=sk-... && dupin ask "is the disk full?"
  dupin init --config ./dupin.yaml < /dev/null
  dupin init --provider anthropic
  dupin init --api-base http://127.0.0.1:8000/v1 --model qwen2.5-coder --context-window 32768`,
      load: async () => (await import("./commands/init.ts")).initCommand,
    },
    version: {
      summary: "Print the version and commit",
      options: {},
      help: `Usage: dupin version

Prints the version and the commit the binary was built from.

Example:
  dupin version`,
      load: async () => (await import("./commands/version.ts")).versionCommand,
    },
  }
}

export function mainHelp(commands: Record<string, CommandEntry>): string {
  const width = Math.max(...Object.keys(commands).map((n) => n.length))
  const lines = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`)
  return `Usage: dupin <command> [options]

dupin investigates infrastructure problems with an LLM and read-only tools.

Commands:
${lines.join("\n")}

Run dupin <command> --help for a command's options and examples.

${MODEL_HELP}

Examples:
  dupin ask "why is the api deployment not ready?" --model openai/gpt-4.1
  dupin serve --config /etc/dupin/config.yaml
  dupin toolsets check`
}
