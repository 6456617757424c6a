import { describe, expect, test } from "bun:test"
import { REDACTED, redact } from "../src/redact.ts"

const SECRET_YAML = `apiVersion: v1
items:
- apiVersion: v1
  data:
    password: aHVudGVyMg==
    tls.key: LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0t
  kind: Secret
  metadata:
    annotations:
      kubectl.kubernetes.io/last-applied-configuration: |
        {"apiVersion":"v1","data":{"password":"aHVudGVyMg=="},"kind":"Secret","metadata":{"name":"db","namespace":"prod"}}
    name: db
    namespace: prod
  stringData:
    config.json: |
      {"dsn": "postgres://app@db/prod"}
  type: Opaque
- apiVersion: v1
  data:
    log_level: debug
  kind: ConfigMap
  metadata:
    name: app-config
kind: List
metadata:
  resourceVersion: ""
`

describe("redact", () => {
  test("Secret manifest in YAML: data and stringData values go, keys, ConfigMaps and metadata stay", () => {
    const out = redact(SECRET_YAML)
    expect(out).not.toContain("aHVudGVyMg==")
    expect(out).not.toContain("LS0tLS1CRUdJTi")
    expect(out).not.toContain("postgres://app@db")
    expect(out).toContain(`    password: ${REDACTED}\n    tls.key: ${REDACTED}\n  kind: Secret`)
    expect(out).toContain(`  stringData:\n    config.json: ${REDACTED}\n  type: Opaque`)
    expect(out).toContain("    log_level: debug")
    expect(out).toContain("    name: db\n    namespace: prod")
  })

  test("a single Secret document whose kind comes first, with a flow mapping", () => {
    const doc =
      "kind: Secret\napiVersion: v1\ndata: {token: c2VjcmV0}\nmetadata:\n  name: x\n---\nkind: Secret\ndata:\n  a: Yg==\n"
    const out = redact(doc)
    expect(out).toBe(
      `kind: Secret\napiVersion: v1\ndata: ${REDACTED}\nmetadata:\n  name: x\n---\nkind: Secret\ndata:\n  a: ${REDACTED}\n`,
    )
  })

  test("Secret manifest in JSON, including the escaped last-applied-configuration", () => {
    const secret = {
      apiVersion: "v1",
      kind: "Secret",
      metadata: {
        name: "db",
        annotations: {
          "kubectl.kubernetes.io/last-applied-configuration": JSON.stringify({
            apiVersion: "v1",
            data: { password: "aHVudGVyMg==" },
            kind: "Secret",
          }),
        },
      },
      data: { password: "aHVudGVyMg==", ".dockerconfigjson": "eyJhdXRocyI6e319" },
      stringData: { "api.yaml": "url: https://x\nkey: abc" },
      type: "Opaque",
    }
    const list = {
      apiVersion: "v1",
      kind: "List",
      items: [secret, { kind: "ConfigMap", data: { level: "debug" } }],
    }
    const out = redact(JSON.stringify(list, null, 2))
    expect(out).not.toContain("aHVudGVyMg==")
    expect(out).not.toContain("eyJhdXRocyI6e319")
    const parsed = JSON.parse(out)
    expect(parsed.items[0].data).toEqual({ password: REDACTED, ".dockerconfigjson": REDACTED })
    expect(parsed.items[0].stringData).toEqual({ "api.yaml": REDACTED })
    expect(parsed.items[1].data).toEqual({ level: "debug" })
    expect(
      JSON.parse(parsed.items[0].metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"])
        .data,
    ).toEqual({
      password: REDACTED,
    })
  })

  test("kubeconfig: client key, token and password go; the CA and client certificate stay", () => {
    const kubeconfig = `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: LS0tLS1DQS1DRVJU
    server: https://10.0.0.1:6443
  name: prod
users:
- name: admin
  user:
    client-certificate-data: LS0tLS1DTElFTlQtQ0VSVA==
    client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQ==
- name: robot
  user:
    token: kubeconfig-u-abc123xyz:verysecretvalue
- name: basic
  user:
    username: admin
    password: s3cr3t!
`
    const out = redact(kubeconfig)
    expect(out).toContain("certificate-authority-data: LS0tLS1DQS1DRVJU")
    expect(out).toContain("client-certificate-data: LS0tLS1DTElFTlQtQ0VSVA==")
    expect(out).toContain(`client-key-data: ${REDACTED}`)
    expect(out).toContain(`token: ${REDACTED}`)
    expect(out).toContain(`password: ${REDACTED}`)
    expect(out).toContain("username: admin")
    expect(out).not.toContain("verysecretvalue")
    expect(out).not.toContain("s3cr3t!")
  })

  test("PEM private keys are removed whole, also when the END line was cut off", () => {
    const key =
      "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\nVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n-----END RSA PRIVATE KEY-----"
    const cert = "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----"
    const out = redact(`before\n${key}\n${cert}\nafter`)
    expect(out).toBe(`before\n[REDACTED RSA PRIVATE KEY]\n${cert}\nafter`)
    const cut = redact(
      "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\nAAAAMwAAAAtzc2gtZW",
    )
    expect(cut).toBe("[REDACTED OPENSSH PRIVATE KEY]")
    const gcp = JSON.stringify({
      type: "service_account",
      private_key_id: "abc",
      private_key:
        "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n",
      client_email: "x@p.iam.gserviceaccount.com",
    })
    const gcpOut = redact(gcp)
    expect(gcpOut).not.toContain("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC")
    expect(JSON.parse(gcpOut).client_email).toBe("x@p.iam.gserviceaccount.com")
  })

  test("URLs with passwords keep the user and host", () => {
    expect(redact("DATABASE_URL=postgres://app:hunter2@db.prod:5432/app")).toBe(
      `DATABASE_URL=postgres://app:${REDACTED}@db.prod:5432/app`,
    )
    expect(redact("fetching https://deploy:ghx_s3cret@git.example.com/repo.git")).toBe(
      `fetching https://deploy:${REDACTED}@git.example.com/repo.git`,
    )
    expect(redact("see http://example.com:8080/path and redis://cache:6379/0")).toBe(
      "see http://example.com:8080/path and redis://cache:6379/0",
    )
  })

  test("bearer tokens and Authorization headers", () => {
    expect(redact("> Authorization: Bearer abc.def.ghi-123")).toBe(`> Authorization: Bearer ${REDACTED}`)
    expect(redact('curl -H "authorization: Basic dXNlcjpwYXNz" http://x')).toBe(
      `curl -H "authorization: Basic ${REDACTED}" http://x`,
    )
    expect(redact("retrying with bearer 0123456789abcdefghijklmnop")).toBe(`retrying with bearer ${REDACTED}`)
    expect(redact("the API uses bearer tokens")).toBe("the API uses bearer tokens")
  })

  test("cloud credentials: AWS, GCP, Azure", () => {
    const aws =
      "[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n"
    const out = redact(aws)
    expect(out).not.toContain("AKIAIOSFODNN7EXAMPLE")
    expect(out).not.toContain("wJalrXUtnFEMI")
    expect(
      redact('{"AccessKeyId": "ASIAXXXXXXXXXXXXXXXX", "SecretAccessKey": "abc/def", "SessionToken": "FwoG"}'),
    ).toBe(`{"AccessKeyId": "${REDACTED}", "SecretAccessKey": "${REDACTED}", "SessionToken": "${REDACTED}"}`)
    const azure =
      "DefaultEndpointsProtocol=https;AccountName=logs;AccountKey=Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4==;EndpointSuffix=core.windows.net"
    expect(redact(azure)).toBe(
      `DefaultEndpointsProtocol=https;AccountName=logs;AccountKey=${REDACTED};EndpointSuffix=core.windows.net`,
    )
    expect(redact("https://acct.blob.core.windows.net/c/b?sv=2022&sig=abc%2Fdef&se=2030")).toBe(
      `https://acct.blob.core.windows.net/c/b?sv=2022&sig=${REDACTED}&se=2030`,
    )
  })

  test("generic assignments, env entries, provider keys and JWTs", () => {
    expect(redact("POSTGRES_PASSWORD=hunter2 api_key=abc123 secret: 's3'")).toBe(
      `POSTGRES_PASSWORD=${REDACTED} api_key=${REDACTED} secret: '${REDACTED}'`,
    )
    expect(redact("env:\n- name: DB_PASSWORD\n  value: hunter2\n- name: LOG_LEVEL\n  value: info")).toBe(
      `env:\n- name: DB_PASSWORD\n  value: ${REDACTED}\n- name: LOG_LEVEL\n  value: info`,
    )
    expect(redact('{"name": "API_TOKEN", "value": "t0k3n"}')).toBe(
      `{"name": "API_TOKEN", "value": "${REDACTED}"}`,
    )
    const keys = [
      "sk-proj-Abcdefghijklmnop1234567890ABCDEFGHIJ",
      "sk-ant-api03-Abcdefghijklmnop1234567890ABCDEFGHIJ",
      "xai-abcdefghijklmnopqrstuvwxyz0123456789ABCD",
      "gsk_abcdefghijklmnopqrstuvwxyz0123456789ABCD",
      "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    ]
    for (const key of keys) expect(redact(`key in log: ${key} end`)).toBe(`key in log: ${REDACTED} end`)
    const jwt =
      "eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ.eyJpc3MiOiJrdWJlcm5ldGVzL3NlcnZpY2VhY2NvdW50In0.c2lnbmF0dXJlLXZhbHVlLWhlcmU"
    expect(redact(`mounted token ${jwt}`)).toBe(`mounted token ${REDACTED}`)
  })

  test("ordinary troubleshooting output is left alone", () => {
    const text = `NAME                      READY   STATUS             RESTARTS   AGE
api-7d9c8b6f5-x2x9k       0/1     CrashLoopBackOff   12         40m
volumes:
- name: certs
  secret:
    secretName: api-tls
automountServiceAccountToken: false
tokens used: 1234, sk-prod-cluster-node-pool-abcdef
sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08`
    expect(redact(text)).toBe(text)
  })

  test("10 MB of output, hostile or not, is redacted in bounded time", () => {
    const inputs = [
      "2024-05-01T10:00:00Z INFO request handled path=/api/v1/items status=200 duration=12ms user=alice\n".repeat(
        110_000,
      ),
      "a".repeat(10_000_000),
      "eyJ-".repeat(2_500_000),
      "-----BEGIN PRIVATE KEY-----".repeat(370_000),
      "password=".repeat(1_100_000),
      "http://a:".repeat(1_100_000),
      "kind: Secret\n".repeat(770_000),
      '{"kind":"Secret","data":{'.repeat(400_000),
      "<<<end_output ".repeat(700_000),
    ]
    for (const input of inputs) {
      const started = performance.now()
      redact(input)
      const ms = performance.now() - started
      expect(ms).toBeLessThan(5000)
    }
  }, 60_000)
})
