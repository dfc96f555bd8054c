package sluice

import (
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"sluice.dev/clients/go/sluicev1"
)

// Error is a failed call with the server's rich details (google.rpc.Status in
// grpc-status-details-bin, see server/api/errors.py) decoded.
type Error struct {
	Code                   codes.Code
	Message                string
	FieldViolations        []*errdetails.BadRequest_FieldViolation
	PreconditionViolations []*errdetails.PreconditionFailure_Violation
	QuotaViolations        []*errdetails.QuotaFailure_Violation
	Resources              []*errdetails.ResourceInfo
	Info                   *errdetails.ErrorInfo
	Retry                  *errdetails.RetryInfo
	// ALREADY_EXISTS for a duplicate upload: the knowledge that already holds the file.
	ExistingKnowledge *sluicev1.Knowledge
}

func (e *Error) Error() string { return e.Code.String() + ": " + e.Message }

// DecodeError turns a gRPC call's error into an *Error; other errors come back as they are.
func DecodeError(err error) error {
	if err == nil {
		return nil
	}
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	decoded := &Error{Code: st.Code(), Message: st.Message()}
	for _, detail := range st.Details() {
		switch d := detail.(type) {
		case *errdetails.BadRequest:
			decoded.FieldViolations = append(decoded.FieldViolations, d.FieldViolations...)
		case *errdetails.PreconditionFailure:
			decoded.PreconditionViolations = append(decoded.PreconditionViolations, d.Violations...)
		case *errdetails.QuotaFailure:
			decoded.QuotaViolations = append(decoded.QuotaViolations, d.Violations...)
		case *errdetails.ResourceInfo:
			decoded.Resources = append(decoded.Resources, d)
		case *errdetails.ErrorInfo:
			decoded.Info = d
		case *errdetails.RetryInfo:
			decoded.Retry = d
		case *sluicev1.Knowledge:
			decoded.ExistingKnowledge = d
		}
	}
	return decoded
}
