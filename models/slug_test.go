package models

import "testing"

func TestSlugify(t *testing.T) {
	cases := map[string]string{
		"Jazz Night":          "jazz-night",
		"  Café — Opening!  ": "cafe-opening",
		"🎉🎉":                  "event",
		"already-a-slug":      "already-a-slug",
		"Rock & Roll":         "rock-and-roll",
	}
	for in, want := range cases {
		if got := Slugify(in, "event"); got != want {
			t.Errorf("Slugify(%q) = %q, want %q", in, got, want)
		}
	}
	long := Slugify(stringOf('a', 500), "x")
	if len(long) > maxSlugLen {
		t.Errorf("slug of %d characters", len(long))
	}
}

func stringOf(c byte, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = c
	}
	return string(b)
}
