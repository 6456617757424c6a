import { describe, expect, test } from "bun:test"
import { REDACTED, redact } from "../../../src/redact.ts"
import { parseCommand } from "../../../src/toolset/bash/parse.ts"
import { classifyPipeline } from "../../../src/toolset/bash/policy.ts"

/**
 * Finding R4: `docker inspect` (bash, and the default-on YAML tool `docker_inspect`) returned
 * container environments: a Stripe key, a database password in a DSN, a Sentry DSN. Every tool
 * result is redacted by the executor; the Env values must go there, and a Go template that
 * reshapes the environment past the redactor needs approval.
 */
const INSPECT = `[
    {
        "Id": "abc123",
        "Config": {
            "Hostname": "payments",
            "Env": [
                "PATH=/usr/bin",
                "STRIPE_LIVE=rk_live_51REDTEAM2stripeRestrictedKey",
                "DATABASE_DSN=host=db user=pay pass=Pg-REDTEAM2-pass dbname=pay",
                "SENTRY_DSN=https://e3b0c44298fc1c14@o1.ingest.sentry.io/42"
            ],
            "Cmd": ["serve"]
        },
        "State": {"Status": "running", "OOMKilled": false}
    }
]`

function decide(command: string): string {
  const parsed = parseCommand(command)
  if (!parsed.ok) throw new Error(parsed.reason)
  return classifyPipeline(parsed.stages, { cwd: "/tmp" }).decision
}

describe("docker inspect and container environments", () => {
  test("the output keeps each variable's name and loses its value", () => {
    const out = redact(INSPECT)
    for (const value of ["rk_live_51REDTEAM2", "Pg-REDTEAM2-pass", "e3b0c44298fc1c14", "/usr/bin"])
      expect(out).not.toContain(value)
    for (const name of ["STRIPE_LIVE", "DATABASE_DSN", "SENTRY_DSN", "PATH"])
      expect(out).toContain(`"${name}=${REDACTED}"`)
    expect(out).toContain('"Status": "running"')
    // podman prints the same shape, on one line too.
    expect(redact('{"Env":["A=1","TOKENISH=xyz"],"Image":"x"}')).toBe(
      `{"Env":["A=${REDACTED}","TOKENISH=${REDACTED}"],"Image":"x"}`,
    )
  })

  test("templates that print the environment past the redactor need approval", () => {
    for (const command of [
      "docker inspect -f '{{json .Config.Env}}' payments",
      "docker inspect --format '{{range .Config.Env}}{{println .}}{{end}}' payments",
      "docker container inspect --format='{{json .Config}}' payments",
      "docker inspect -f '{{json .}}' payments",
      "docker inspect -f '{{.Config}}' payments",
      "docker inspect -f '{{index .Config.Env 1}}' payments",
      "docker inspect -f '{{join .Config.Env \",\"}}' payments",
      "docker image inspect -f '{{.ContainerConfig.Env}}' nginx",
    ])
      expect({ command, decision: decide(command) }).toEqual({ command, decision: "approve" })
  })

  test("field templates and plain inspect still run without approval", () => {
    for (const command of [
      "docker inspect payments",
      "docker inspect -f '{{.State.Status}} {{.RestartCount}}' payments",
      "docker inspect --format '{{json .State.Health}}' payments",
      "docker inspect -f '{{range .Mounts}}{{.Source}} {{end}}' payments",
    ])
      expect({ command, decision: decide(command) }).toEqual({ command, decision: "allow" })
  })
})
