package endpoint

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"calendar/models"
)

// MaxLengths is the longest text, in characters (Unicode code points), each text parameter takes; a longer one is
// 400 rest_invalid_param naming it. Texts no entry names take DefaultMaxLength; list parameters apply the limit to
// each item. /doc states each as maxLength. The limits keep one record's answer small (a list of fifty records is
// answered whole, anonymously) while leaving room for what each field is used for.
var MaxLengths = map[string]int{
	// Titles and names (of terms: as WordPress allows).
	"title": 1000, "venue": 1000, "organizer": 1000, "name": models.MaxTermNameLen,
	// Rich text.
	"description": 100_000, "excerpt": 10_000,
	// Identifiers and short fields.
	"slug": 200, "timezone": 64, "password": 255, "status": 50, "context": 20, "namespace": 200,
	"order": 20, "orderby": 50,
	// Addresses and contacts.
	"address": 1000, "city": 200, "country": 200, "province": 200, "state": 200, "stateprovince": 200, "zip": 50,
	"phone": 100, "email": 254, "website": 2048, "image": 2048,
	// Costs (each value of a list) and dates given as text.
	"cost": 200, "date": 200, "date_utc": 200, "start_date": 200, "end_date": 200, "starts_before": 200,
	"starts_after": 200, "ends_before": 200, "ends_after": 200,
	// Search texts.
	"search": 1000,
}

// DefaultMaxLength is the longest text of a parameter MaxLengths does not name.
const DefaultMaxLength = 1000

// maxLength is the longest text parameter name takes, the stricter of MaxLengths (or DefaultMaxLength) and a
// `validate` max on the field.
func maxLength(name string, validate string) int {
	n, ok := MaxLengths[name]
	if !ok {
		n = DefaultMaxLength
	}
	for _, rule := range strings.Split(validate, ",") {
		if v, found := strings.CutPrefix(rule, "max="); found {
			if m, err := strconv.Atoi(v); err == nil && m < n {
				n = m
			}
		}
	}
	return n
}

// checkLength reports a parameter's text that is longer than it may be: the decoded value when it is a string or
// a list of strings, else (types with their own syntax) the raw text or texts sent.
func checkLength(name, validate string, decoded, raw any) string {
	limit := maxLength(name, validate)
	var texts []string
	switch v := decoded.(type) {
	case string:
		texts = []string{v}
	case []string:
		texts = v
	default:
		texts = rawTexts(raw)
	}
	for _, s := range texts {
		if len(s) > limit && utf8.RuneCountInString(s) > limit {
			return fmt.Sprintf("must be at most %d characters long", limit)
		}
	}
	return ""
}

// rawTexts are the strings of a raw parameter value: itself, or the items of a list (not the members of objects,
// which are bound, and checked, as parameters of their own).
func rawTexts(raw any) []string {
	switch v := raw.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, item := range v {
			if s, ok := item.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// textMaxLength is the maxLength /doc states for a parameter of schema, 0 for parameters that take no text.
func textMaxLength(name, validate string, schema Schema) int {
	if schema.Type == "string" || (schema.Type == "array" && schema.Items != nil && schema.Items.Type == "string") {
		return maxLength(name, validate)
	}
	for _, o := range schema.OneOf {
		if o.Type == "string" {
			return maxLength(name, validate)
		}
	}
	return 0
}
