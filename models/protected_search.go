package models

import "strings"

// The search rule for protected records. A password-protected event, venue or organizer shows a caller who may
// not edit it only its title or name: every other field is blanked (lists and feeds take no password). Search
// must therefore look in a protected record's other fields only for callers who may edit it; otherwise whether
// a hidden field matches would show in which records a list holds, in its total, in a feed and in the ETags of
// all of them, and an anonymous client could read a hidden field letter by letter.
//
// Every search of events, venues and organizers builds its condition from ProtectedFieldsVisible, and whoever
// changes how search is done (an index, full-text search) keeps the rule: a field outside a kind's always-visible
// columns matches only where ProtectedFieldsVisible holds.

// eventAlwaysVisible and linkedAlwaysVisible are the searched columns a protected record shows every caller.
var (
	eventAlwaysVisible  = map[string]bool{"title": true}
	linkedAlwaysVisible = map[string]bool{"name": true}
)

// ProtectedFieldsVisible is the SQL condition, on the rows of table (events, venues or organizers), that the
// viewer sees their protected fields: the row has no password, or the viewer may edit it (User.CanEdit).
func ProtectedFieldsVisible(table string, viewer *User) (string, []any) {
	editable, args := editableBy(table, viewer)
	return "(" + table + ".password = '' OR " + editable + ")", args
}

// editableBy is User.CanEdit as SQL on the rows of table: the same capabilities, by the status a trashed record
// had before the trash.
func editableBy(table string, u *User) (string, []any) {
	if u == nil {
		return "1 = 0", nil
	}
	status := "(CASE WHEN " + table + ".status = 'trash' THEN " + table + ".trashed_status ELSE " + table + ".status END)"
	published := status + " IN ('publish', 'future')"
	var own []string
	if u.can(capEditPublished) {
		own = append(own, published)
	}
	if u.can(capEdit) {
		own = append(own, "NOT "+published)
	}
	var conds []string
	var args []any
	if len(own) > 0 {
		conds = append(conds, "("+table+".author_id = ? AND ("+strings.Join(own, " OR ")+"))")
		args = append(args, u.ID)
	}
	if u.can(capEditOthers) {
		others := []string{status + " NOT IN ('publish', 'future', 'private')"}
		if u.can(capEditPublished) {
			others = append(others, published)
		}
		if u.can(capEditPrivate) {
			others = append(others, status+" = 'private'")
		}
		conds = append(conds, "("+table+".author_id <> ? AND ("+strings.Join(others, " OR ")+"))")
		args = append(args, u.ID)
	}
	if len(conds) == 0 {
		return "1 = 0", nil
	}
	return "(" + strings.Join(conds, " OR ") + ")", args
}
