/**
 * Realistic synthetic tool output, deterministic (seeded): what kubectl, container logs and APIs
 * return during an investigation. The tokenizer's speed depends heavily on the text (long runs
 * of one character, hex ids, punctuation), so benchmarks use this rather than lorem ipsum.
 */

/** mulberry32: small, fast, good enough to make test data reproducible. */
export function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

type Rand = () => number
const pick = <T>(rand: Rand, items: readonly T[]): T => items[Math.floor(rand() * items.length)]!
const hex = (rand: Rand, n: number) =>
  Array.from({ length: n }, () => Math.floor(rand() * 16).toString(16)).join("")
const int = (rand: Rand, lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1))

const SERVICES = ["checkout", "payments", "cart", "auth", "inventory", "gateway", "search", "orders"]
const LEVELS = ["INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR"]
const MESSAGES = [
  "request completed",
  "upstream connect error or disconnect/reset before headers. reset reason: connection termination",
  "database connection pool exhausted, waiting for a free connection",
  "GET /api/v1/orders/{id} 200",
  "retrying request to payments-svc.prod.svc.cluster.local:8080 after timeout",
  "cache miss for key session:",
  "OOMKilled: container exceeded its memory limit (512Mi)",
  "readiness probe failed: HTTP probe failed with statuscode: 503",
]

/** Container log lines: mixed plain text and JSON-structured, as `kubectl logs` shows them. */
export function logLines(rand: Rand, count: number): string {
  const lines: string[] = []
  let ts = Date.UTC(2025, 5, 1, 12, 0, 0)
  for (let i = 0; i < count; i++) {
    ts += int(rand, 1, 900)
    const time = new Date(ts).toISOString()
    const svc = pick(rand, SERVICES)
    const level = pick(rand, LEVELS)
    const msg = pick(rand, MESSAGES)
    if (rand() < 0.5) {
      lines.push(
        JSON.stringify({
          ts: time,
          level: level.toLowerCase(),
          logger: `${svc}.handler`,
          msg,
          trace_id: hex(rand, 32),
          span_id: hex(rand, 16),
          duration_ms: Math.round(rand() * 5000) / 10,
          status: pick(rand, [200, 200, 200, 404, 500, 503]),
        }),
      )
    } else {
      lines.push(
        `${time} ${level.padEnd(5)} [${svc}-${hex(rand, 10)}-${hex(rand, 5)}] ${msg} (${int(rand, 1, 999)} ms)`,
      )
    }
  }
  return `${lines.join("\n")}\n`
}

/** A Deployment manifest, as `kubectl get -o yaml` prints it. */
export function yamlManifest(rand: Rand): string {
  const svc = pick(rand, SERVICES)
  const image = `registry.example.com/shop/${svc}:v${int(rand, 1, 3)}.${int(rand, 0, 40)}.${int(rand, 0, 9)}`
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  annotations:
    deployment.kubernetes.io/revision: "${int(rand, 1, 90)}"
    kubectl.kubernetes.io/last-applied-configuration: |
      {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"${svc}","namespace":"prod"}}
  creationTimestamp: "2025-0${int(rand, 1, 9)}-1${int(rand, 0, 9)}T0${int(rand, 0, 9)}:12:44Z"
  generation: ${int(rand, 1, 200)}
  labels:
    app.kubernetes.io/name: ${svc}
    app.kubernetes.io/part-of: shop
  name: ${svc}
  namespace: prod
  resourceVersion: "${int(rand, 10_000_000, 99_999_999)}"
  uid: ${hex(rand, 8)}-${hex(rand, 4)}-${hex(rand, 4)}-${hex(rand, 4)}-${hex(rand, 12)}
spec:
  progressDeadlineSeconds: 600
  replicas: ${int(rand, 1, 12)}
  selector:
    matchLabels:
      app.kubernetes.io/name: ${svc}
  template:
    metadata:
      labels:
        app.kubernetes.io/name: ${svc}
    spec:
      containers:
      - env:
        - name: DATABASE_URL
          valueFrom:
            secretKeyRef:
              key: url
              name: ${svc}-db
        - name: LOG_LEVEL
          value: info
        image: ${image}
        imagePullPolicy: IfNotPresent
        livenessProbe:
          httpGet:
            path: /healthz
            port: 8080
          periodSeconds: 10
        name: ${svc}
        ports:
        - containerPort: 8080
          name: http
          protocol: TCP
        resources:
          limits:
            cpu: "${int(rand, 1, 4)}"
            memory: ${pick(rand, ["256Mi", "512Mi", "1Gi"])}
          requests:
            cpu: ${int(rand, 100, 900)}m
            memory: ${pick(rand, ["128Mi", "256Mi"])}
status:
  availableReplicas: ${int(rand, 0, 12)}
  conditions:
  - lastTransitionTime: "2025-06-01T11:5${int(rand, 0, 9)}:02Z"
    message: ReplicaSet "${svc}-${hex(rand, 10)}" has successfully progressed.
    reason: NewReplicaSetAvailable
    status: "True"
    type: Progressing
`
}

/** A `kubectl get pods -o json`-style list. */
export function jsonPods(rand: Rand, count: number): string {
  const items = Array.from({ length: count }, () => {
    const svc = pick(rand, SERVICES)
    return {
      metadata: {
        name: `${svc}-${hex(rand, 10)}-${hex(rand, 5)}`,
        namespace: "prod",
        uid: `${hex(rand, 8)}-${hex(rand, 4)}-${hex(rand, 4)}-${hex(rand, 4)}-${hex(rand, 12)}`,
        labels: { "app.kubernetes.io/name": svc, "pod-template-hash": hex(rand, 10) },
      },
      spec: { nodeName: `ip-10-0-${int(rand, 0, 255)}-${int(rand, 0, 255)}.eu-west-1.compute.internal` },
      status: {
        phase: pick(rand, ["Running", "Running", "Running", "Pending", "Failed"]),
        podIP: `10.42.${int(rand, 0, 255)}.${int(rand, 0, 255)}`,
        containerStatuses: [
          {
            name: svc,
            ready: rand() < 0.8,
            restartCount: int(rand, 0, 40),
            lastState: rand() < 0.3 ? { terminated: { reason: "OOMKilled", exitCode: 137 } } : {},
          },
        ],
      },
    }
  })
  return JSON.stringify({ apiVersion: "v1", kind: "List", items }, null, 2)
}

/** `kubectl get pods` table output. */
export function podTable(rand: Rand, count: number): string {
  const rows = ["NAME                                READY   STATUS             RESTARTS   AGE"]
  for (let i = 0; i < count; i++) {
    const name = `${pick(rand, SERVICES)}-${hex(rand, 10)}-${hex(rand, 5)}`
    const status = pick(rand, ["Running", "Running", "CrashLoopBackOff", "Pending", "OOMKilled"])
    rows.push(
      `${name.padEnd(36)}${rand() < 0.8 ? "1/1" : "0/1"}     ${status.padEnd(19)}${String(int(rand, 0, 40)).padEnd(11)}${int(rand, 1, 30)}d`,
    )
  }
  return `${rows.join("\n")}\n`
}

/** Text of about `bytes` bytes made by repeating `make` (for large corpora). */
export function ofSize(bytes: number, make: () => string): string {
  const parts: string[] = []
  let size = 0
  while (size < bytes) {
    const part = make()
    parts.push(part)
    size += part.length
  }
  return parts.join("").slice(0, bytes)
}
