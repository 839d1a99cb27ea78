package controllers

import (
	"net"
	"strconv"
	"strings"
	"time"

	"calendar/models"
)

// dateLayout is how every date of the API is written ("Y-m-d H:i:s").
const dateLayout = "2006-01-02 15:04:05"

// FormatDate writes instant t as the wall clock of loc.
func FormatDate(t time.Time, loc *time.Location) string { return t.In(loc).Format(dateLayout) }

// RecordDates are the publication and modification dates of a record, on the site's wall clock and in UTC.
type RecordDates struct {
	Date        string `json:"date" schema:"date" doc:"Publication date, site time zone."`
	DateUTC     string `json:"date_utc" schema:"date" doc:"Publication date, UTC."`
	Modified    string `json:"modified" schema:"date" doc:"Last modification, site time zone."`
	ModifiedUTC string `json:"modified_utc" schema:"date" doc:"Last modification, UTC."`
}

// NewRecordDates writes the instants a record was published and modified for a site in the time zone site.
func NewRecordDates(published, modified time.Time, site *time.Location) RecordDates {
	return RecordDates{Date: FormatDate(published, site), DateUTC: FormatDate(published, time.UTC),
		Modified: FormatDate(modified, site), ModifiedUTC: FormatDate(modified, time.UTC)}
}

// DateDetails is the *_date_details object: every part a zero-padded string.
type DateDetails struct {
	Year    string `json:"year" schema:"pattern=^\\d{4}$"`
	Month   string `json:"month" schema:"pattern=^\\d{2}$"`
	Day     string `json:"day" schema:"pattern=^\\d{2}$"`
	Hour    string `json:"hour" schema:"pattern=^\\d{2}$"`
	Minutes string `json:"minutes" schema:"pattern=^\\d{2}$"`
	Seconds string `json:"seconds" schema:"pattern=^\\d{2}$"`
}

// dateDetailsOf splits a date as FormatDate writes it: a record shows both, and formatting each date once more for
// its details had been a third of the 7% of the service's time that uncached pages of 50 events spent on dates.
func dateDetailsOf(s string) DateDetails {
	return DateDetails{Year: s[0:4], Month: s[5:7], Day: s[8:10], Hour: s[11:13], Minutes: s[14:16], Seconds: s[17:19]}
}

// AuthorString is the author as the API shows it: the user ID as a string.
func AuthorString(id uint64) string { return strconv.FormatUint(id, 10) }

// GlobalID is "<host><path>?id=<id>": the site's host without scheme or port, as The Events Calendar builds it.
func (s Site) GlobalID(id uint64) string {
	host := s.Host
	path := ""
	if i := strings.IndexByte(host, '/'); i >= 0 {
		host, path = host[:i], host[i:]
	}
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return host + path + "?id=" + strconv.FormatUint(id, 10)
}

// GlobalIDs are a record's ID across sites, and the global IDs it was imported through.
type GlobalIDs struct {
	GlobalID        string   `json:"global_id" schema:"globalid" doc:"\"<host><path>?id=<id>\": the record's ID across sites."`
	GlobalIDLineage []string `json:"global_id_lineage" schema:"lineage" doc:"The global IDs the record was imported through, its own first."`
}

// GlobalIDs are the global IDs of the record id of the site: its own, and a lineage of it alone.
func (s Site) GlobalIDs(id uint64) GlobalIDs {
	gid := s.GlobalID(id)
	return GlobalIDs{GlobalID: gid, GlobalIDLineage: []string{gid}}
}

// Image is the featured-image object, for images the service knows by URL (no size data).
type Image struct {
	URL       string `json:"url"`
	ID        uint64 `json:"id"`
	Extension string `json:"extension,omitempty"`
}

// ImageShape is the "image" member: the image object, or false when there is none.
func ImageShape(img *models.Image) any {
	if img == nil {
		return false
	}
	return Image{URL: img.URL, ID: img.ID, Extension: img.Extension}
}

// Viewer is who looks at a record: the authenticated user (nil for anonymous) and the password the request gave.
// Redaction of password-protected records depends on it: callers who can edit a record
// never need its password.
type Viewer struct {
	User     *models.User
	Password string
	// check compares Password with protected records, once each, within the attempt limits (App.newViewer).
	check *passwordCheck
}
