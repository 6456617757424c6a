/**
 * The alert face's routes (CONTRACT §10): Alertmanager's webhook in, investigations out. Auth,
 * the body cap and JSON parsing are the app's, as for every route.
 */
import { Elysia } from "elysia"
import { parseAlertmanagerBody } from "../../alerts/alertmanager.ts"
import type { AlertService } from "../../alerts/service.ts"
import { RequestError } from "../../errors.ts"
import {
  INVESTIGATION_STATUSES,
  type InvestigationStatus,
  investigationSummaryWire,
  investigationWire,
} from "../../store/investigation.ts"
import { jsonResponse } from "../errors.ts"

const MAX_LIST = 500

export function alertRoutes(service: AlertService) {
  return new Elysia({ name: "alerts" })
    .post("/api/alerts/alertmanager", async ({ body }) => {
      const alerts = parseAlertmanagerBody(body)
      const store = await storeOr503(service)
      if (store) return store
      const { refused, investigations } = await service.intake(alerts)
      // Alertmanager retries a notification that got a 5xx: the alerts accepted now are then
      // matched by dedupe, and the refused ones get another chance once the queue has room.
      if (refused > 0) {
        return jsonResponse(
          503,
          {
            detail: `The investigation queue is full: ${refused} alert(s) were refused; send them again later.`,
            error_code: 5030,
            investigations,
          },
          { "retry-after": "30" },
        )
      }
      return jsonResponse(202, { investigations })
    })
    .get("/api/investigations", async ({ request }) => {
      const query = new URL(request.url, "http://localhost").searchParams
      const status = query.get("status") || undefined
      if (status !== undefined && !(INVESTIGATION_STATUSES as readonly string[]).includes(status)) {
        throw new RequestError(`status must be one of ${INVESTIGATION_STATUSES.join(", ")}.`, {
          kind: "schema",
          errors: [{ path: "/status", message: `must be one of ${INVESTIGATION_STATUSES.join(", ")}` }],
        })
      }
      const limitText = query.get("limit")
      const limit = limitText === null || limitText === "" ? 50 : Number(limitText)
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST) {
        throw new RequestError(`limit must be an integer from 1 to ${MAX_LIST}.`, {
          kind: "schema",
          errors: [{ path: "/limit", message: `must be an integer from 1 to ${MAX_LIST}` }],
        })
      }
      const unavailable = await storeOr503(service)
      if (unavailable) return unavailable
      const list = await service.list({ status: status as InvestigationStatus | undefined, limit })
      return { investigations: list.map(investigationSummaryWire) }
    })
    .get("/api/investigations/:id", async ({ params }) => {
      const unavailable = await storeOr503(service)
      if (unavailable) return unavailable
      const investigation = await service.get(params.id)
      if (!investigation)
        return jsonResponse(404, { detail: "No investigation has this id.", error_code: 4040 })
      return investigationWire(investigation)
    })
}

/** A 503 while the store cannot be opened (a PostgreSQL that is down): Alertmanager retries. */
async function storeOr503(service: AlertService): Promise<Response | undefined> {
  try {
    await service.ready()
    return undefined
  } catch (error) {
    return jsonResponse(
      503,
      {
        detail: `Alert investigations are unavailable: ${error instanceof Error ? error.message : String(error)}`,
        error_code: 5030,
      },
      { "retry-after": "30" },
    )
  }
}
