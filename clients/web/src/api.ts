// The referee over HTTP: generated messages (protobuf-es) and a Connect client (connect-web).
import { ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { ErrorInfoSchema } from "./gen/google/rpc/error_details_pb";
import { RefereeService } from "./gen/referee/v1/referee_pb";

/** The server: this page's own origin, or ?api=http://host:port (with --http-cors-origin). */
export const apiBase = new URLSearchParams(location.search).get("api") ?? location.origin;

// JSON on the wire: readable in the browser's developer tools, and what the tests inspect.
export const api = createClient(
  RefereeService,
  createConnectTransport({ baseUrl: apiBase, useBinaryFormat: false }),
);

export interface Problem {
  code: string;
  message: string;
  ruleId?: string;
}

/** A failed call in words: the referee's message (it starts with the rule id of a refused
 * command, e.g. "VQ-6: ..."), its Connect code and the rule id from ErrorInfo. */
export function problem(error: unknown): Problem {
  const e = ConnectError.from(error);
  const info = e.findDetails(ErrorInfoSchema)[0];
  return {
    code: String(e.code),
    message: e.rawMessage,
    ruleId: info?.metadata["rule_id"],
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
