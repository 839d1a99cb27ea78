package controllers

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"net/http"
	"strings"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/gin-gonic/gin"
	ginjson "github.com/gin-gonic/gin/codec/json"

	"calendar/models"
)

// This file holds the validators of conditional requests (RFC 9110 §8.8 and §13): entity tags, which the
// response layer (middleware.Responses) puts on every GET answer and compares with If-None-Match, modification
// dates of single records for If-Modified-Since, and the If-Match precondition of item writes.

// ETagOf is the strong entity tag of an answer body: what GET answers carry, and what If-Match is compared with.
// It is the body's 64-bit xxHash: a tag only has to differ between the bodies one URL answers with over time, and
// a SHA-256 digest of every answer had taken a twentieth of the service's time for pages of 50 events.
func ETagOf(body []byte) string {
	var sum [8]byte
	binary.BigEndian.PutUint64(sum[:], xxhash.Sum64(body))
	return `"` + hex.EncodeToString(sum[:]) + `"`
}

// WeakETagOf is a weak entity tag naming key: iCalendar feeds are tagged before they are built (from what their
// content depends on), so the tag promises an equivalent feed, not the same bytes.
func WeakETagOf(key string) string {
	sum := sha256.Sum256([]byte(key))
	return `W/"` + hex.EncodeToString(sum[:16]) + `"`
}

// ETagMatches tells whether a list of entity tags (an If-None-Match or If-Match header) matches etag; weak
// comparison (RFC 9110 §8.8.3.2) is used for If-None-Match, strong for If-Match, where a weak tag never matches.
// "*" matches any current representation.
func ETagMatches(header, etag string, weak bool) bool {
	for _, candidate := range strings.Split(header, ",") {
		candidate = strings.TrimSpace(candidate)
		if candidate == "*" {
			return true
		}
		if weak {
			candidate = strings.TrimPrefix(candidate, "W/")
		} else if strings.HasPrefix(candidate, "W/") || strings.HasPrefix(etag, "W/") {
			continue
		}
		if candidate == strings.TrimPrefix(etag, "W/") {
			return true
		}
	}
	return false
}

// requireMatch enforces the preconditions of a write of one record: If-Match (RFC 9110 §13.1.1) and, when there
// is no If-Match, If-Unmodified-Since (§13.1.4). current renders the record as GET on its item route shows it to
// this caller, with its modification date as that answer's Last-Modified gives it (zero for a record without one:
// If-Unmodified-Since cannot fail for it). Write handlers call requireMatch inside their
// transaction once the record is found, locked and the caller allowed (404 and 403 come first), so the comparison
// and the write see the same row: of two writes sent with the same tag or date, the second finds the first's
// result and gets 412 rest_precondition_failed, changing nothing. Without either header it does nothing and
// costs nothing; an If-Unmodified-Since that is not an HTTP date is ignored, as the RFC says.
func requireMatch(c *gin.Context, current func() (shape any, modified time.Time, err error)) error {
	header := c.GetHeader("If-Match")
	var since time.Time
	if header == "" {
		t, err := http.ParseTime(c.GetHeader("If-Unmodified-Since"))
		if err != nil {
			return nil
		}
		since = t
	}
	shape, modified, err := current()
	if err != nil {
		return err
	}
	if header == "" {
		if !modified.IsZero() && modified.Truncate(time.Second).After(since) {
			return models.Errorf(models.KindPrecondition, "rest_precondition_failed",
				"The record has changed since the date If-Unmodified-Since gives. Read it again.")
		}
		return nil
	}
	// Marshalled exactly as c.JSON writes a GET answer, so the tag is the one that answer carried.
	body, err := ginjson.API.Marshal(shape)
	if err != nil {
		return err
	}
	if ETagMatches(header, ETagOf(body), false) {
		return nil
	}
	return models.Errorf(models.KindPrecondition, "rest_precondition_failed",
		"The record has changed since it was read: If-Match does not name its current ETag. Read it again.")
}

// latest is the latest of dates (zero for none): a record's Last-Modified.
func latest(dates ...time.Time) time.Time {
	var l time.Time
	for _, d := range dates {
		if d.After(l) {
			l = d
		}
	}
	return l
}

// setLastModified sets Last-Modified on a single record's answer: the latest of the modification dates given.
// The response layer answers If-Modified-Since with it (If-None-Match wins when both are sent).
func setLastModified(c *gin.Context, dates ...time.Time) {
	if l := latest(dates...); !l.IsZero() {
		c.Header("Last-Modified", l.UTC().Format(http.TimeFormat))
	}
}
