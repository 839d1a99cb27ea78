package controllers

import (
	"encoding/json"
	"errors"
	"net/url"
	"strings"

	"calendar/controllers/endpoint"
	"calendar/controllers/input"
)

// DateParam is a date parameter as sent: text, or a Unix timestamp as a JSON number. The handler parses it with
// ParseDate, because how naive text is read depends on the timezone the same request gives.
type DateParam struct{ Text string }

// DecodeParam accepts a string or an integer JSON number.
func (d *DateParam) DecodeParam(raw any) error {
	if n, ok := raw.(json.Number); ok {
		if _, err := endpoint.DecodeInt(n); err != nil {
			return errors.New("must be a date (text or a Unix timestamp)")
		}
		d.Text = n.String()
		return nil
	}
	s, err := endpoint.DecodeString(raw)
	if err != nil {
		return errors.New("must be a date (text or a Unix timestamp)")
	}
	d.Text = s
	return nil
}

// ParamSchema describes a date: text in one of the accepted forms, or a Unix timestamp.
func (DateParam) ParamSchema() endpoint.Schema {
	return endpoint.Schema{OneOf: []endpoint.Schema{{Type: "string"}, {Type: "integer"}}}
}

// isWebURL tells whether s is an absolute http or https URL with a host.
func isWebURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" &&
		!strings.ContainsAny(s, " \t\r\n")
}

// CostParam is an event's cost as sent: text, a number, or a list of them.
type CostParam struct{ Cost input.Cost }

// DecodeParam parses the cost with ParseCost.
func (p *CostParam) DecodeParam(raw any) error {
	c, err := input.ParseCost(raw)
	if err != nil {
		return err
	}
	p.Cost = c
	return nil
}

// ParamSchema describes a cost.
func (CostParam) ParamSchema() endpoint.Schema {
	return endpoint.Schema{OneOf: []endpoint.Schema{{Type: "string"}, {Type: "number"},
		{Type: "array", Items: &endpoint.Schema{OneOf: []endpoint.Schema{{Type: "string"}, {Type: "number"}}}}}}
}

// ParentParam is an event's parent as sent: an event ID, or 0 or "" for none.
type ParentParam struct{ ID uint64 }

// DecodeParam accepts a non-negative integer or "".
func (p *ParentParam) DecodeParam(raw any) error {
	if s, ok := raw.(string); ok && strings.TrimSpace(s) == "" {
		return nil
	}
	n, err := endpoint.DecodeInt(raw)
	if err != nil || n < 0 {
		return errors.New("must be the ID of an event, or 0 for none")
	}
	p.ID = uint64(n)
	return nil
}

// ParamSchema describes a parent reference.
func (ParentParam) ParamSchema() endpoint.Schema { return endpoint.Schema{Type: "integer"} }

// LinksParam is a linked-record parameter (venue, organizer, categories, tags) kept raw: each has its own
// grammar of IDs, names, CSV and inline objects, resolved inside the write transaction.
type LinksParam struct{ Raw any }

// DecodeParam keeps the raw value.
func (p *LinksParam) DecodeParam(raw any) error {
	p.Raw = raw
	return nil
}

// ParamSchema describes a list of references: IDs, names or objects, as a list or a single value.
func (LinksParam) ParamSchema() endpoint.Schema {
	item := endpoint.Schema{OneOf: []endpoint.Schema{{Type: "integer"}, {Type: "string"}, {Type: "object"}}}
	return endpoint.Schema{OneOf: []endpoint.Schema{{Type: "array", Items: &item}, {Type: "integer"}, {Type: "string"}, {Type: "object"}}}
}

// isEmptyLinks tells whether a raw links value asks for no links: null, "", 0, [] or a list of such values.
func isEmptyLinks(raw any) bool {
	switch v := raw.(type) {
	case nil:
		return true
	case string:
		return strings.TrimSpace(v) == "" || strings.TrimSpace(v) == "0"
	case json.Number:
		return v.String() == "0"
	case []any:
		for _, item := range v {
			if !isEmptyLinks(item) {
				return false
			}
		}
		return true
	}
	return false
}
