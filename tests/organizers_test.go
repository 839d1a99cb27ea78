package tests

import (
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"calendar/models"
)

func TestReadingAnOrganizerMatchesTheCapturedShape(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleAdministrator)
	// Captures 58 and 84: Organizer 1 with phone, website and e-mail.
	rec := organizerTestKind.create(t, app, token, "Organizer 1", map[string]any{"phone": "555-0200",
		"website": "https://org1.example.com", "email": "org1@example.com"})
	want := []string{"id", "author", "status", "date", "date_utc", "modified", "modified_utc", "url", "organizer", "slug",
		"phone", "website", "email", "json_ld", "global_id", "global_id_lineage"}
	for _, path := range []string{organizerTestKind.path(idOf(t, rec)), "/organizers/by-slug/organizer-1"} {
		r := app.Get(path).ExpectStatus(t, http.StatusOK)
		if got := jsonKeys(t, r.Body); !reflect.DeepEqual(got, want) {
			t.Fatalf("keys %v, want %v", got, want)
		}
		ld := r.JSON(t)["json_ld"].(map[string]any)
		for key, want := range map[string]any{"@type": "Person", "name": "Organizer 1", "telephone": "555-0200",
			"email": "org1@example.com", "sameAs": "https://org1.example.com", "description": "",
			"url": "https://org1.example.com"} {
			if ld[key] != want {
				t.Errorf("json_ld.%s = %v, want %v", key, ld[key], want)
			}
		}
	}
}

func TestPerPageIsClampedToTheMaximum(t *testing.T) {
	t.Parallel()
	app := NewApp(t, WithEnv("CALENDAR_MAX_PER_PAGE", "4"))
	token := app.Token(models.RoleEditor)
	for i := 0; i < 5; i++ {
		venueTestKind.create(t, app, token, fmt.Sprintf("V%d", i), nil)
	}
	names, body := venueTestKind.list(t, app, "?per_page=100", "")
	if len(names) != 4 || body["total_pages"] != 2.0 || !strings.Contains(body["rest_url"].(string), "per_page=4") {
		t.Fatalf("per_page=100 gave %d items, %v", len(names), body)
	}
}

func TestInlineCoordinatesFollowTheGeolocationSwitch(t *testing.T) {
	t.Parallel()
	app := NewApp(t, WithEnv("CALENDAR_GEOLOCATION", "off"))
	_, err := resolve(t, app, venueTestKind, app.model(models.RoleAdministrator), `{"venue": "Geo", "geo_lat": 1, "geo_lng": 2}`)
	var e *models.Error
	if !errors.As(err, &e) || !strings.Contains(e.Params["venue"], "geolocation is not enabled") {
		t.Fatalf("error %v", err)
	}
}
