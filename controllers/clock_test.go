package controllers

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"calendar/config"
)

func TestAnEventListSaysHowItsAnswerDependsOnTheClock(t *testing.T) {
	cfg, _, err := config.Load(nil, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ec := &EventController{App: &App{Config: cfg}}
	cases := []struct{ query, want string }{
		{"", "day"},
		{"search=jazz&per_page=50", "day"},
		{"start_date=2027-01-01", "day"}, // the end is still the default
		{"start_date=2027-01-01&end_date=2027-02-01", ""},
		{"starts_after=2027-06-01", ""}, // a starts_/ends_ bound drops the default window
		{"start_date=2027-01-01%2010:00&end_date=2027-02-01T10:00:00Z&strict_dates=1", ""},
		{"start_date=1800000000&end_date=1900000000", ""},
		{"start_date=2018-01-01%204pm&end_date=2018-01-01%20%2B5%20days", ""},
		{"start_date=now&end_date=2030-01-01", "second"},
		{"starts_after=today", "second"},
		{"ends_before=next%20friday", "second"},
		{"start_date=%2B5%20days&end_date=2030-01-01", "second"},
		{"start_date=not-a-date&end_date=2030-01-01", "second"},
		{"include=1,2&start_date=now", ""},
	}
	gin.SetMode(gin.ReleaseMode)
	for _, tc := range cases {
		c, _ := gin.CreateTestContext(httptest.NewRecorder())
		c.Request = httptest.NewRequest("GET", "/events?"+tc.query, nil)
		got := ec.ListClock(c)
		if kind, _, _ := strings.Cut(got, " "); kind != tc.want {
			t.Errorf("%q: clock %q, want %q", tc.query, got, tc.want)
		}
	}
}

func TestVenueListsDependOnTheClockOnlyForUpcomingEvents(t *testing.T) {
	gin.SetMode(gin.ReleaseMode)
	for query, want := range map[string]string{"": "", "only_with_upcoming=false": "", "only_with_upcoming=1": "second",
		"only_with_upcoming=maybe": "second", "search=hall": ""} {
		c, _ := gin.CreateTestContext(httptest.NewRecorder())
		c.Request = httptest.NewRequest("GET", "/venues?"+query, nil)
		if kind, _, _ := strings.Cut(UpcomingClock(c), " "); kind != want {
			t.Errorf("%q: clock %q, want %q", query, kind, want)
		}
	}
}
