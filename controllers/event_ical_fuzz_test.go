package controllers

import (
	"strings"
	"testing"
)

// FuzzAcceptQuality reads any Accept header: a quality between 0 and 1 from a rank between -1 and 2, 0 when no
// range matches, and the same answer whatever the case of the media types.
func FuzzAcceptQuality(f *testing.F) {
	for _, seed := range []string{"text/calendar", "text/calendar;q=0.5, application/json", "*/*;q=0", "text/*",
		"application/json;q=abc, text/calendar;q=2", ";;,,/", "TEXT/Calendar", `text/calendar;x="a,b";q=0.3`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, header string) {
		q, rank := acceptQuality(header, "text", "calendar")
		if q < 0 || q > 1 || rank < -1 || rank > 2 || (rank == -1 && q != 0) {
			t.Fatalf("%q: quality %v, rank %d", header, q, rank)
		}
		if q2, rank2 := acceptQuality(strings.ToUpper(header), "text", "calendar"); q2 != q || rank2 != rank {
			t.Fatalf("%q: upper case gives %v/%d, not %v/%d", header, q2, rank2, q, rank)
		}
	})
}
