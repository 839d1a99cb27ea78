package models

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"
)

// Kind classifies an Error; one place (the error middleware) maps kinds to HTTP statuses.
type Kind int

// The kinds of errors the service reports.
const (
	KindInternal     Kind = iota // a defect or an unexpected database error; never shown to clients in detail
	KindInvalid                  // a parameter has a bad value
	KindMissing                  // required parameters are absent
	KindNotFound                 // the record or route does not exist
	KindUnauthorized             // no valid credentials for an operation that needs them
	KindForbidden                // the caller may not do this
	KindConflict                 // the write clashes with existing data
	KindGone                     // the record is already in the trash
	KindTooLarge                 // the request body is over the limit
	KindTooMany                  // rate limited
	KindUnavailable              // the database cannot be reached
	KindPrecondition             // a conditional request's precondition failed
)

// Error is the one error type of the service. Code and Message are the API's error code and text; Params names
// the offending parameters with a reason each; Data carries extra members of the error body's "data" object.
type Error struct {
	Kind Kind
	// Status overrides the HTTP status of the kind, for codes The Events Calendar answers differently (term_exists: 400).
	Status  int
	Code    string
	Message string
	// Params maps each invalid parameter to a human-readable reason (KindInvalid).
	Params map[string]string
	// Details optionally holds a structured error per parameter (KindInvalid), as WordPress does.
	Details map[string]any
	// Missing lists the absent required parameters in order (KindMissing).
	Missing []string
	// Data holds further members of "data" (e.g. term_id for term_exists).
	Data map[string]any
	// AdditionalData is the body's additional_data member (WordPress puts earlier error payloads there).
	AdditionalData []any
	// Err is the underlying cause, logged but never rendered.
	Err error
}

func (e *Error) Error() string {
	msg := e.Code + ": " + e.Message
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf builds an Error of the given kind, code and message.
func Errorf(kind Kind, code, format string, args ...any) *Error {
	return &Error{Kind: kind, Code: code, Message: fmt.Sprintf(format, args...)}
}

// Invalid reports parameters with bad values: each name maps to its reason.
func Invalid(params map[string]string) *Error {
	names := make([]string, 0, len(params))
	for n := range params {
		names = append(names, n)
	}
	sort.Strings(names)
	return &Error{Kind: KindInvalid, Code: "rest_invalid_param",
		Message: "Invalid parameter(s): " + strings.Join(names, ", "), Params: params}
}

// InvalidParam reports one parameter with a bad value.
func InvalidParam(name, reason string) *Error { return Invalid(map[string]string{name: reason}) }

// Missing reports absent required parameters, in the order given.
func Missing(names ...string) *Error {
	return &Error{Kind: KindMissing, Code: "rest_missing_callback_param",
		Message: "Missing parameter(s): " + strings.Join(names, ", "), Missing: names}
}

// NoRoute is the answer for an unknown path or method.
func NoRoute() *Error {
	return Errorf(KindNotFound, "rest_no_route", "No route was found matching the URL and request method.")
}

// Forbidden is the answer to a caller without the capability; the renderer turns it into 401 for anonymous callers.
func Forbidden() *Error {
	return Errorf(KindForbidden, "rest_forbidden", "Sorry, you are not allowed to do that.")
}

// Unauthorized is the answer to an anonymous caller of a write route, or to bad credentials.
func Unauthorized(message string) *Error {
	if message == "" {
		message = "Sorry, you are not allowed to do that."
	}
	return Errorf(KindUnauthorized, "rest_forbidden", "%s", message)
}

// ErrNotFound is returned by store lookups that find nothing; controllers turn it into their resource's 404.
var ErrNotFound = errors.New("record not found")

// AsError returns err as an *Error, classifying database errors: connection problems are KindUnavailable, unique
// violations KindConflict, foreign-key violations deletedMeanwhile, missing records KindNotFound, anything else
// KindInternal.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	switch {
	case errors.Is(err, gorm.ErrForeignKeyViolated):
		return deletedMeanwhile(err)
	case errors.Is(err, ErrNotFound), errors.Is(err, gorm.ErrRecordNotFound):
		return &Error{Kind: KindNotFound, Code: "rest_not_found", Message: "The record does not exist.", Err: err}
	case errors.Is(err, gorm.ErrDuplicatedKey):
		return &Error{Kind: KindConflict, Code: "rest_conflict", Message: "The record clashes with an existing one.", Err: err}
	case isUnavailable(err):
		return &Error{Kind: KindUnavailable, Code: "rest_database_unavailable",
			Message: "The database is unavailable; try again shortly.", Err: err}
	}
	return &Error{Kind: KindInternal, Code: "rest_internal_error", Message: "An internal error occurred.", Err: err}
}

// linkParams are the write parameters that name a record, by the column of the foreign key that holds it.
var linkParams = map[string]string{"venue_id": "venue", "organizer_id": "organizer", "category_id": "categories",
	"tag_id": "tags", "image_id": "image", "author_id": "author", "parent_id": "parent"}

// deletedMeanwhile is the answer to a write whose foreign key failed: every write checks the records it names
// first, so one of them was deleted by another transaction while this one ran (it waited for that delete, then
// found the record gone). The parameter that named it gets the 400 an unknown record gets; when the constraint
// does not tell which (SQLite names none), the write is a conflict to retry.
func deletedMeanwhile(err error) *Error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		for column, param := range linkParams {
			if strings.HasSuffix(pgErr.ConstraintName, "_"+column+"_fkey") {
				e := Invalid(map[string]string{param: "names a record that was deleted while this request ran"})
				e.Err = err
				return e
			}
		}
	}
	return &Error{Kind: KindConflict, Code: "rest_conflict",
		Message: "A record the write names was deleted meanwhile; try again.", Err: err}
}

// isRetryable tells whether err is PostgreSQL aborting a transaction that would succeed run again: a deadlock
// victim (40P01) or a serialization failure (40001).
func isRetryable(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "40P01" || pgErr.Code == "40001")
}

// isUnavailable tells connection failures (the database is down, restarting or unreachable) from query errors.
func isUnavailable(err error) bool {
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, net.ErrClosed) {
		return true
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return true
	}
	var connectErr *pgconn.ConnectError
	if errors.As(err, &connectErr) {
		return true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// Class 08 is "connection exception"; 57P0x are shutdown and startup states of the server.
		return strings.HasPrefix(pgErr.Code, "08") || strings.HasPrefix(pgErr.Code, "57P0")
	}
	msg := err.Error()
	return strings.Contains(msg, "sql: database is closed") || strings.Contains(msg, "conn closed") ||
		strings.Contains(msg, "failed to connect") || strings.Contains(msg, "connection refused") ||
		strings.Contains(msg, "unexpected EOF") || strings.Contains(msg, "database is locked")
}
