package tests

import (
	"fmt"
	"net/http"
	"testing"
	"time"
)

// dateTimeLayout is how the API writes dates.
const dateTimeLayout = "2006-01-02 15:04:05"

// daysFromNow is the UTC wall clock of now + n days at the given hour, as the API writes dates.
func daysFromNow(n, hour int) string {
	d := time.Now().UTC().AddDate(0, 0, n)
	return time.Date(d.Year(), d.Month(), d.Day(), hour, 0, 0, 0, time.UTC).Format(dateTimeLayout)
}

// eventBody is a valid create body for an event n days from now, 10:00 to 12:00 UTC, with extra fields.
func eventBody(title string, days int, extra ...any) map[string]any {
	body := map[string]any{"title": title, "start_date": daysFromNow(days, 10), "end_date": daysFromNow(days, 12)}
	for i := 0; i+1 < len(extra); i += 2 {
		body[extra[i].(string)] = extra[i+1]
	}
	return body
}

// createEvent creates an event as the holder of token and returns the record.
func (a *App) createEvent(t *testing.T, token string, body map[string]any) map[string]any {
	t.Helper()
	return a.Do(Request{Method: http.MethodPost, Path: "/events", Token: token, Body: body}).
		ExpectStatus(t, http.StatusCreated).JSON(t)
}

// eventPath is the API path of the event record.
func eventPath(event map[string]any) string {
	return fmt.Sprintf("/events/%d", uint64(event["id"].(float64)))
}

// updateEvent sends an update with the method and expects 200.
func (a *App) updateEvent(t *testing.T, method, path, token string, body any) map[string]any {
	t.Helper()
	return a.Do(Request{Method: method, Path: path, Token: token, Body: body}).ExpectStatus(t, http.StatusOK).JSON(t)
}
