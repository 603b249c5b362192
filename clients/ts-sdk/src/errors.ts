// What a refusal says, read the same way from every wire: a ConnectError of a unary call or a
// stream (Connect, gRPC-Web and gRPC all carry google.rpc details), or a Refusal on the
// player stream. docs/clients.md section 4 lists every reason with its code and rule id.
import { Code, ConnectError } from "@connectrpc/connect";
import {
  BadRequestSchema,
  ErrorInfoSchema,
  PreconditionFailureSchema,
  RetryInfoSchema,
} from "./gen/google/rpc/error_details_pb.js";
import { Code as RpcCode } from "./gen/google/rpc/code_pb.js";
import type { Refusal as RefusalMessage } from "./gen/referee/v1/referee_pb.js";

/** The referee's error domain (ErrorInfo.domain). */
export const DOMAIN = "referee.v1";

/** A refusal, whichever wire it came over. */
export interface RefusalDetails {
  /** The status code (Connect's enum; the same numbers as gRPC's). */
  code: Code;
  /** The code by name, as gRPC and grpcurl spell it: "FAILED_PRECONDITION". */
  codeName: string;
  message: string;
  /** ErrorInfo.reason: NOT_YOUR_TURN, GAME_OVER, RULE_VIOLATION, ... */
  reason: string;
  /** ErrorInfo.metadata (rule_id, seat, current_version, limit, ...). */
  metadata: Record<string, string>;
  /** The rule that refused it, when a rule did. */
  ruleId?: string;
  /** google.rpc.RetryInfo's delay, when the server said when to retry. */
  retryAfterMs?: number;
  /** google.rpc.BadRequest's field violations. */
  fieldViolations: { field: string; description: string }[];
  /** google.rpc.PreconditionFailure's violations (TURN, GAME_STATE, SEAT, ...). */
  preconditions: { type: string; subject: string; description: string }[];
}

/** "FAILED_PRECONDITION" for Code.FailedPrecondition (google.rpc.Code's names). */
export function codeName(code: Code): string {
  return RpcCode[code as number] ?? String(code);
}

/** The refusal an error carries; undefined for anything that is not a ConnectError. */
export function refusalOf(error: unknown): RefusalDetails | undefined {
  if (!(error instanceof ConnectError)) return undefined;
  const info = error.findDetails(ErrorInfoSchema)[0];
  const retry = error.findDetails(RetryInfoSchema)[0];
  const metadata = { ...(info?.metadata ?? {}) };
  const delay = retry?.retryDelay;
  return {
    code: error.code,
    codeName: codeName(error.code),
    message: error.rawMessage,
    reason: info?.reason ?? "",
    metadata,
    ruleId: metadata["rule_id"],
    retryAfterMs: delay ? Number(delay.seconds) * 1000 + Math.round(delay.nanos / 1e6) : undefined,
    fieldViolations: error
      .findDetails(BadRequestSchema)
      .flatMap((bad) => bad.fieldViolations.map(({ field, description }) => ({ field, description }))),
    preconditions: error
      .findDetails(PreconditionFailureSchema)
      .flatMap((failure) => failure.violations.map(({ type, subject, description }) => ({ type, subject, description }))),
  };
}

/** A Refusal message of the player stream (PlayerSession's CommandOutcome), as RefusalDetails. */
export function refusalFromMessage(refusal: RefusalMessage): RefusalDetails {
  const metadata = { ...refusal.metadata };
  return {
    code: refusal.code as Code,
    codeName: codeName(refusal.code as Code),
    message: refusal.message,
    reason: refusal.reason,
    metadata,
    ruleId: metadata["rule_id"],
    fieldViolations: [],
    preconditions: [],
  };
}

/** Codes after which a stream is resumed (after the last sequence received) and a call is
 * retried as it was (a command with the same command_id: applied at most once). A refusal of
 * the request itself (INVALID_ARGUMENT, NOT_FOUND, PERMISSION_DENIED, UNAUTHENTICATED,
 * FAILED_PRECONDITION, UNIMPLEMENTED) is not retried. */
export const RETRYABLE: ReadonlySet<Code> = new Set([
  Code.Unavailable,
  Code.DeadlineExceeded,
  Code.Internal,
  Code.Unknown,
  Code.Canceled,
  Code.ResourceExhausted,
  Code.Aborted,
]);

/** Whether to retry after ``error`` (a stream: resume; a command: the same id). */
export function retryable(error: unknown): boolean {
  if (!(error instanceof ConnectError)) return true; // a transport fault: a socket reset, ...
  return RETRYABLE.has(error.code);
}
