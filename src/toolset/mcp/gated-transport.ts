import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client"
import { InboundGate } from "./inbound-gate.ts"

/**
 * An HTTP transport behind an InboundGate (inbound-gate.ts): notifications past the rate are
 * dropped before the client parses and validates them, as on stdio (where the transport has the
 * gate built in). A Proxy, not a wrapper class: the SDK reads optional members of its transports
 * (`sessionId`, `setProtocolVersion`) that a wrapper would have to copy one by one.
 */
export function gated<T extends Transport>(transport: T, gate = new InboundGate()): T {
  return new Proxy(transport, {
    set(target, property, value: unknown) {
      if (property === "onmessage" && typeof value === "function") {
        const deliver = value as NonNullable<Transport["onmessage"]>
        const filtered: Transport["onmessage"] = (message, extra) => {
          if (gate.admit(message)) deliver(message, extra)
        }
        return Reflect.set(target, property, filtered, target)
      }
      return Reflect.set(target, property, value, target)
    },
    get(target, property) {
      if (property === "send") {
        return (message: JSONRPCMessage, options?: Parameters<Transport["send"]>[1]) => {
          gate.sent(message)
          return target.send(message, options)
        }
      }
      const value: unknown = Reflect.get(target, property, target)
      return typeof value === "function" ? value.bind(target) : value
    },
  })
}
