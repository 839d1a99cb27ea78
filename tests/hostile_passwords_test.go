package tests

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"calendar/models"
)

// protectedRecords creates a protected event, venue and organizer, all with password pw, and returns their paths.
func protectedRecords(t *testing.T, app *App, editor, pw string, nameSuffix ...string) (event, venue, organizer string) {
	t.Helper()
	suffix := strings.Join(nameSuffix, "")
	ev := app.createEvent(t, editor, eventBody("Locked", 2, "password", pw))
	v := app.create(t, editor, "/venues", map[string]any{"venue": "Vault" + suffix, "address": "1 Hidden Lane", "password": pw})
	o := app.create(t, editor, "/organizers", map[string]any{"organizer": "Secret Org" + suffix, "email": "hidden@example.com", "password": pw})
	return eventPath(ev), fmt.Sprintf("/venues/%v", v["id"]), fmt.Sprintf("/organizers/%v", o["id"])
}

func expectTooMany(t *testing.T, res *Response, what string) {
	t.Helper()
	if res.Status != http.StatusTooManyRequests {
		t.Fatalf("%s: %d, want 429; %s", what, res.Status, res.Body)
	}
	res.ExpectError(t, http.StatusTooManyRequests, "rest_too_many_requests")
	if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err != nil || s < 1 || s > 60 {
		t.Fatalf("%s: Retry-After %q", what, res.Header.Get("Retry-After"))
	}
}

func TestRecordPasswordGuessesAreLimitedPerClient(t *testing.T) {
	t.Parallel()
	app := NewApp(t, WithEnv("CALENDAR_PASSWORD_FAILURES_PER_MINUTE", "3"))
	editor := app.Token(models.RoleEditor)
	event, venue, organizer := protectedRecords(t, app, editor, "opensesame")
	for i := range 3 {
		app.Get(event+"?password=guess"+strconv.Itoa(i)).ExpectError(t, http.StatusForbidden, "event-password-protected")
	}
	expectTooMany(t, app.Get(event+"?password=guess9"), "a fourth wrong event password")
	expectTooMany(t, app.Get(event+"?password=opensesame"), "the right password from a blocked client")
	expectTooMany(t, app.Get(event+".ics?password=opensesame"), "the iCalendar read from a blocked client")
	expectTooMany(t, app.Get(venue+"?password=opensesame"), "another record from a blocked client")
	// Reads without a password are not attempts, and another client is not blocked.
	app.Get(event).ExpectError(t, http.StatusForbidden, "event-password-protected")
	other := Request{Path: event + "?password=opensesame", RemoteAddr: "192.0.2.50:1000"}
	app.Do(other).ExpectStatus(t, http.StatusOK)

	// Venues and organizers answer a wrong password redacted, and count it the same way.
	for _, path := range []string{venue, organizer} {
		addr := "198.51.100.9:1000"
		if path == organizer {
			addr = "198.51.100.10:1000"
		}
		for i := range 3 {
			body := string(app.Do(Request{Path: path + "?password=nope" + strconv.Itoa(i), RemoteAddr: addr}).
				ExpectStatus(t, http.StatusOK).Body)
			if strings.Contains(body, "Hidden Lane") || strings.Contains(body, "hidden@example.com") {
				t.Fatalf("%s with a wrong password is not redacted: %s", path, body)
			}
		}
		expectTooMany(t, app.Do(Request{Path: path + "?password=nope", RemoteAddr: addr}), path)
	}
	body := string(app.Do(Request{Path: venue + "?password=opensesame", RemoteAddr: "192.0.2.51:1"}).ExpectStatus(t, http.StatusOK).Body)
	if !strings.Contains(body, "Hidden Lane") {
		t.Fatalf("the right venue password does not unlock it: %s", body)
	}
}

func TestRecordPasswordGuessesAreLimitedPerRecord(t *testing.T) {
	t.Parallel()
	app := NewApp(t, WithEnv("CALENDAR_PASSWORD_FAILURES_PER_MINUTE", "2"))
	editor := app.Token(models.RoleEditor)
	event, _, _ := protectedRecords(t, app, editor, "opensesame")
	// Each address guesses once: the record's own allowance (three times a client's) runs out all the same.
	for i := range 6 {
		app.Do(Request{Path: event + "?password=g" + strconv.Itoa(i), RemoteAddr: fmt.Sprintf("203.0.113.%d:1", i+1)}).
			ExpectError(t, http.StatusForbidden, "event-password-protected")
	}
	expectTooMany(t, app.Do(Request{Path: event + "?password=g", RemoteAddr: "203.0.113.99:1"}), "a record out of attempts")
	// Another record is still open to that address.
	other := app.createEvent(t, editor, eventBody("Other", 2, "password", "x"))
	app.Do(Request{Path: eventPath(other) + "?password=x", RemoteAddr: "203.0.113.99:1"}).ExpectStatus(t, http.StatusOK)
}

func TestRecordPasswordsAreStoredSaltedAlike(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	editor := app.Token(models.RoleEditor)
	protectedRecords(t, app, editor, "same")
	protectedRecords(t, app, editor, "same", " 2")
	seen := map[string]bool{}
	for _, table := range []string{"events", "venues", "organizers"} {
		stored := storedPasswords(t, app, table)
		if len(stored) != 2 {
			t.Fatalf("%s: %d protected records stored", table, len(stored))
		}
		for _, s := range stored {
			if !strings.HasPrefix(s, "pbkdf2-sha256$") || strings.Contains(s, "same") || seen[s] {
				t.Fatalf("%s stores a password as %q (not salted alike, or repeated)", table, s)
			}
			seen[s] = true
		}
	}
	// An identical venue is still recognised, password included; a different password is a new venue.
	same := app.Do(Request{Method: http.MethodPost, Path: "/venues", Token: editor,
		Body: map[string]any{"venue": "Vault", "address": "1 Hidden Lane", "password": "same"}})
	same.ExpectStatus(t, http.StatusOK)
	app.create(t, editor, "/venues", map[string]any{"venue": "Vault", "address": "1 Hidden Lane", "password": "other"})
}

func TestStoredRecordPasswordsAreMigrated(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	editor := app.Token(models.RoleEditor)
	event, venue, organizer := protectedRecords(t, app, editor, "before")
	// As an older version stored them: events an unsalted SHA-256, venues and organizers as given. No API writes
	// these forms, and the migration that rewrites them is what is tested.
	sum := sha256.Sum256([]byte("legacy event"))
	db := app.Store.DB()
	for _, stmt := range []string{
		"UPDATE events SET password = 'sha256:" + hex.EncodeToString(sum[:]) + "'",
		"UPDATE venues SET password = 'legacy venue'",
		"UPDATE organizers SET password = 'legacy organizer'",
		"DELETE FROM goose_db_version WHERE version_id = 16",
	} {
		if err := db.Exec(stmt).Error; err != nil {
			t.Fatal(err)
		}
	}
	if _, err := app.Store.Migrate(context.Background()); err != nil {
		t.Fatalf("migrating again: %v", err)
	}
	for _, table := range []string{"events", "venues", "organizers"} {
		for _, s := range storedPasswords(t, app, table) {
			if !strings.HasPrefix(s, "pbkdf2-sha256") || strings.Contains(s, "legacy") {
				t.Fatalf("%s still stores %q", table, s)
			}
		}
	}
	twin := app.Twin() // a fresh process: nothing remembered
	twin.Get(event+"?password=legacy%20event").ExpectStatus(t, http.StatusOK)
	twin.Get(event+"?password=before").ExpectError(t, http.StatusForbidden, "event-password-protected")
	if body := string(twin.Get(venue+"?password=legacy%20venue").ExpectStatus(t, http.StatusOK).Body); !strings.Contains(body, "Hidden Lane") {
		t.Fatalf("the migrated venue password does not unlock it: %s", body)
	}
	if body := string(twin.Get(organizer+"?password=legacy%20organizer").ExpectStatus(t, http.StatusOK).Body); !strings.Contains(body, "hidden@example.com") {
		t.Fatalf("the migrated organizer password does not unlock it: %s", body)
	}
}
