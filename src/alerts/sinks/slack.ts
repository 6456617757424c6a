import { type Env, expandEnv } from "../../config/env.ts"
import type { Investigation } from "../../store/investigation.ts"
import { investigationLink, postJson, type Sink } from "./sink.ts"

// Slack's Block Kit limits: header text 150 characters, section text 3000.
const HEADER_CHARS = 150
const SECTION_CHARS = 3000
const SUMMARY_CHARS = 500

/** A Slack incoming webhook: one Block Kit message per finished investigation. */
export function slackSink(
  name: string,
  settings: { webhook_url: string },
  env: Env,
  publicUrl: string | undefined,
): Sink {
  return {
    name,
    type: "slack",
    send: (investigation, signal) => {
      const url = expandEnv(settings.webhook_url, env, `alerts.sinks ${name}: webhook_url`)
      return postJson(url, slackMessage(investigation, publicUrl), {}, signal)
    },
  }
}

/** The message: alert name, severity, a short summary, the analysis, and a link back when known. */
export function slackMessage(
  investigation: Investigation,
  publicUrl: string | undefined,
): Record<string, unknown> {
  const { labels, annotations } = investigation.alert
  const alertname = labels.alertname ?? "Alert"
  const severity = labels.severity ?? "unknown"
  const summary = annotations.summary ?? annotations.description ?? "(no summary)"
  const analysis =
    investigation.status === "done"
      ? (investigation.result?.analysis ?? "(no analysis)")
      : `The investigation failed: ${investigation.error ?? "unknown error"}`
  const link = investigationLink(publicUrl, investigation.id)
  const blocks: Array<Record<string, unknown>> = [
    {
      type: "header",
      text: { type: "plain_text", text: clip(`${alertname}: investigated by dupin`, HEADER_CHARS) },
    },
    {
      type: "section",
      fields: [
        { type: "mrkdwn", text: `*Severity*\n${clip(mrkdwnEscape(severity), 200)}` },
        { type: "mrkdwn", text: `*Status*\n${investigation.status}` },
      ],
    },
    {
      type: "section",
      text: { type: "mrkdwn", text: clip(`*Summary*\n${mrkdwnEscape(summary)}`, SUMMARY_CHARS) },
    },
    { type: "divider" },
    { type: "section", text: { type: "mrkdwn", text: clip(mrkdwnEscape(analysis), SECTION_CHARS) } },
  ]
  if (link) {
    blocks.push({
      type: "context",
      elements: [{ type: "mrkdwn", text: `<${link}|Full investigation ${investigation.id}>` }],
    })
  }
  return { text: clip(`${alertname} (${severity}): ${summary}`, SECTION_CHARS), blocks }
}

/** Slack's mrkdwn treats `<`, `>` and `&` as control characters: model text must not make links. */
function mrkdwnEscape(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;")
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}
