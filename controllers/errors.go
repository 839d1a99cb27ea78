package controllers

import (
	"net/http"
	"sort"

	"calendar/models"
)

// statusOf maps error kinds to HTTP statuses: the one place this mapping lives.
var statusOf = map[models.Kind]int{
	models.KindInternal:     http.StatusInternalServerError,
	models.KindInvalid:      http.StatusBadRequest,
	models.KindMissing:      http.StatusBadRequest,
	models.KindNotFound:     http.StatusNotFound,
	models.KindUnauthorized: http.StatusUnauthorized,
	models.KindForbidden:    http.StatusForbidden,
	models.KindConflict:     http.StatusConflict,
	models.KindGone:         http.StatusGone,
	models.KindTooLarge:     http.StatusRequestEntityTooLarge,
	models.KindTooMany:      http.StatusTooManyRequests,
	models.KindUnavailable:  http.StatusServiceUnavailable,
	models.KindPrecondition: http.StatusPreconditionFailed,
}

// ErrorStatus is the HTTP status of an error. A capability failure is 401 for anonymous callers and 403 for
// authenticated ones, as WordPress answers.
func ErrorStatus(e *models.Error, authenticated bool) int {
	if e.Status != 0 {
		return e.Status
	}
	if e.Kind == models.KindForbidden && e.Code == "rest_forbidden" && !authenticated {
		return http.StatusUnauthorized
	}
	if s, ok := statusOf[e.Kind]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// ErrorBody is the API's error body for e: {"code","message","data":{"status",…}}, keys in The Events Calendar's order.
func ErrorBody(e *models.Error, status int) orderedMap {
	data := orderedMap{{"status", status}}
	switch e.Kind {
	case models.KindInvalid:
		if e.Params != nil {
			var details any = []any{}
			if len(e.Details) > 0 {
				details = e.Details
			}
			data = append(data, orderedEntry{"params", e.Params}, orderedEntry{"details", details})
		}
	case models.KindMissing:
		data = append(data, orderedEntry{"params", e.Missing})
	}
	keys := make([]string, 0, len(e.Data))
	for k := range e.Data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		data = append(data, orderedEntry{k, e.Data[k]})
	}
	body := orderedMap{{"code", e.Code}, {"message", e.Message}, {"data", data}}
	if e.AdditionalData != nil {
		body = append(body, orderedEntry{"additional_data", e.AdditionalData})
	}
	return body
}
