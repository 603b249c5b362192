// SubmitCommand done right: one command id per command, sent again with the same id while
// its outcome is unknown (the referee applies a command id once, and answers a retry with the
// first outcome: `duplicate` if it had been applied).
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { CallOptions, Client } from "@connectrpc/connect";
import { RefereeService, type SubmitCommandRequestSchema, type SubmitCommandResponse } from "./gen/referee/v1/referee_pb.js";
import { backoff, outcomeUnknown, refusalOf } from "./errors.js";

export type SubmitRequest = MessageInitShape<typeof SubmitCommandRequestSchema> & { commandId: string };

export interface RetryOptions {
  /** Tries after the first, at most. */
  retries?: number;
  /** The backoff's first and most delays (ms). */
  first?: number;
  most?: number;
}

/** SubmitCommand, retried with the same command id while its outcome is unknown; a refusal
 * (the referee's answer) is thrown at once. */
export async function submitCommand(
  client: Client<typeof RefereeService>,
  request: SubmitRequest,
  options: CallOptions = {},
  { retries = 12, first = 100, most = 5000 }: RetryOptions = {},
): Promise<SubmitCommandResponse> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await client.submitCommand(request, options);
    } catch (error) {
      if (attempt >= retries || options.signal?.aborted || !outcomeUnknown(error)) throw error;
      const delay = refusalOf(error)?.retryAfterMs ?? backoff(attempt, first, most);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/** A fresh command id (a UUID; where crypto.randomUUID is missing, as on a page served over
 * plain HTTP from another host, one from crypto.getRandomValues). */
export function newCommandId(): string {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
