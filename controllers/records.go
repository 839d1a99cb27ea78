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

// DateDetails is the *_date_details object: every part a zero-padded string.
type DateDetails struct {
	Year    string `json:"year"`
	Month   string `json:"month"`
	Day     string `json:"day"`
	Hour    string `json:"hour"`
	Minutes string `json:"minutes"`
	Seconds string `json:"seconds"`
}

// NewDateDetails splits instant t, read on the wall clock of loc.
func NewDateDetails(t time.Time, loc *time.Location) DateDetails {
	s := FormatDate(t, loc)
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
