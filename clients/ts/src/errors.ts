// The server's rich error details (google.rpc.Status in grpc-status-details-bin, see
// server/api/errors.py) decoded into one typed error.
import { Metadata, ServiceError, status as GrpcStatus } from "@grpc/grpc-js";
import { Any } from "./gen/google/protobuf/any";
import { Status } from "./gen/google/rpc/status";
import {
  BadRequest,
  BadRequest_FieldViolation,
  ErrorInfo,
  PreconditionFailure_Violation,
  PreconditionFailure,
  QuotaFailure,
  QuotaFailure_Violation,
  ResourceInfo,
  RetryInfo,
} from "./gen/google/rpc/error_details";
import { Knowledge } from "./gen/sluice/v1/knowledge";

const DETAILS_KEY = "grpc-status-details-bin";
const TYPE_PREFIX = "type.googleapis.com/";

export class SluiceError extends Error {
  readonly fieldViolations: BadRequest_FieldViolation[] = [];
  readonly preconditionViolations: PreconditionFailure_Violation[] = [];
  readonly quotaViolations: QuotaFailure_Violation[] = [];
  readonly resources: ResourceInfo[] = [];
  errorInfo?: ErrorInfo;
  retryInfo?: RetryInfo;
  /** ALREADY_EXISTS for a duplicate upload: the knowledge that already holds the file. */
  existingKnowledge?: Knowledge;

  constructor(
    readonly code: GrpcStatus,
    message: string,
    readonly cause?: ServiceError,
  ) {
    super(message);
    this.name = "SluiceError";
  }

  /** The name of the code (INVALID_ARGUMENT, NOT_FOUND...). */
  get codeName(): string {
    return GrpcStatus[this.code];
  }
}

/** A SluiceError from a failed call; its details when the server sent any. */
export function decodeError(error: ServiceError): SluiceError {
  const decoded = new SluiceError(error.code, error.details || error.message, error);
  const raw = detailsBytes(error.metadata);
  if (raw === undefined) {
    return decoded;
  }
  for (const detail of Status.decode(raw).details) {
    addDetail(decoded, detail);
  }
  return decoded;
}

function detailsBytes(metadata: Metadata | undefined): Uint8Array | undefined {
  const values = metadata?.get(DETAILS_KEY) ?? [];
  const first = values[0];
  return typeof first === "string" || first === undefined ? undefined : first;
}

function addDetail(error: SluiceError, detail: Any): void {
  switch (detail.typeUrl.slice(TYPE_PREFIX.length)) {
    case "google.rpc.BadRequest":
      error.fieldViolations.push(...BadRequest.decode(detail.value).fieldViolations);
      break;
    case "google.rpc.PreconditionFailure":
      error.preconditionViolations.push(...PreconditionFailure.decode(detail.value).violations);
      break;
    case "google.rpc.QuotaFailure":
      error.quotaViolations.push(...QuotaFailure.decode(detail.value).violations);
      break;
    case "google.rpc.ResourceInfo":
      error.resources.push(ResourceInfo.decode(detail.value));
      break;
    case "google.rpc.ErrorInfo":
      error.errorInfo = ErrorInfo.decode(detail.value);
      break;
    case "google.rpc.RetryInfo":
      error.retryInfo = RetryInfo.decode(detail.value);
      break;
    case "sluice.v1.Knowledge":
      error.existingKnowledge = Knowledge.decode(detail.value);
      break;
    default:
      // A detail type this client does not know: the code and message still say what failed.
      break;
  }
}

/** Whether `error` is a gRPC call's failure (a ServiceError) rather than a local one. */
export function isServiceError(error: unknown): error is ServiceError {
  return error instanceof Error && typeof (error as Partial<ServiceError>).code === "number";
}
