package tests

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"calendar/models"
)

// This file holds the permission matrix: every write route of the route table × every role × own or
// another user's record × every status, and every read route × role × status for visibility. The rules the test
// expects are written out here from WordPress's roles and the API's rules, independently of models/permissions.go, so
// that a wrong rule in the service fails the test instead of agreeing with it.

// roleRanks orders the roles by what they may do; anonymous callers are 0.
var roleRanks = map[string]int{"anonymous": 0, "subscriber": 1, "contributor": 2, "author": 3, "editor": 4,
	"administrator": 5}

func rankOf(role string) int { return roleRanks[role] }

// recordStates are the states of a record the matrices try: every status a record can have, and the trash with the
// status the record had before it (permissions on a trashed record follow that status).
var recordStates = []string{"publish", "future", "draft", "pending", "private", "trash/publish", "trash/draft"}

// splitState returns the status of a state and, for the trash, the status before it.
func splitState(state string) (status, before string) {
	if s, ok := strings.CutPrefix(state, "trash/"); ok {
		return models.StatusTrash, s
	}
	return state, ""
}

// mayChange is edit_post and delete_post (WordPress's map_meta_cap): editors and administrators
// change everything; authors their own records; contributors their own records that are not published or
// scheduled. A trashed record counts with its status before the trash.
func mayChange(role string, own bool, state string) bool {
	status, before := splitState(state)
	if status == models.StatusTrash {
		status = before
	}
	published := status == models.StatusPublish || status == models.StatusFuture
	switch {
	case rankOf(role) >= roleRanks["editor"]:
		return true
	case !own:
		return false
	case published:
		return role == "author"
	}
	return role == "contributor" || role == "author"
}

// mayRead is read_post: published records are public, private ones need to be one's own or read_private_posts
// (editors), and everything else needs edit rights on the record.
func mayRead(role string, own bool, state string) bool {
	switch state {
	case models.StatusPublish:
		return true
	case models.StatusPrivate:
		return (own && role != "anonymous") || rankOf(role) >= roleRanks["editor"]
	}
	return mayChange(role, own, state)
}

// scaledBack is the scale-back rule: users who cannot publish get pending for publish or future, and draft when a create
// sends no status; an update without a status keeps current.
func scaledBack(role, sent, current string, creating bool) string {
	canPublish := rankOf(role) >= roleRanks["author"]
	switch {
	case sent == "" && !creating:
		return current
	case sent == "" && canPublish:
		return models.StatusPublish
	case sent == "":
		return models.StatusDraft
	case !canPublish && (sent == models.StatusPublish || sent == models.StatusFuture):
		return models.StatusPending
	}
	return sent
}

// writeTarget is what a write route of the table acts on: a kind of record, addressed by ID, by slug, or not at all
// (the collection, where POST creates).
type writeTarget struct {
	kind string
	by   string // "", "id" or "slug"
}

// writeTargets maps every write route of the route table to its permission case. A write route missing here fails
// TestEveryWriteRouteByRoleOwnershipAndStatus: a new route needs its permission rules written down.
var writeTargets = map[string]writeTarget{
	"/events": {"events", ""}, "/events/:id": {"events", "id"}, "/events/by-slug/:slug": {"events", "slug"},
	"/venues": {"venues", ""}, "/venues/:id": {"venues", "id"}, "/venues/by-slug/:slug": {"venues", "slug"},
	"/organizers": {"organizers", ""}, "/organizers/:id": {"organizers", "id"},
	"/organizers/by-slug/:slug": {"organizers", "slug"},
	"/categories":               {"categories", ""}, "/categories/:id": {"categories", "id"},
	"/tags": {"tags", ""}, "/tags/:id": {"tags", "id"},
	"/webhooks": {"webhooks", "admin"}, "/webhooks/:id": {"webhooks", "admin"},
	"/webhooks/:id/deliveries/:delivery/redeliver": {"webhooks", "admin"},
}

// ownedKind is an owned record kind (events, venues, organizers) as the matrices use it.
type ownedKind struct {
	plural, singular string
	// name is the parameter and field of the record's title: title, venue or organizer.
	name string
}

var ownedKinds = map[string]ownedKind{
	"events":     {"events", "event", "title"},
	"venues":     {"venues", "venue", "venue"},
	"organizers": {"organizers", "organizer", "organizer"},
}

// permSeq makes the names and slugs of the matrices' records unique.
var permSeq atomic.Int64

// ownedRecord is a record the matrices inserted.
type ownedRecord struct {
	id   uint64
	slug string
}

// insertOwned stores a record of kind k through the models (the write matrix needs hundreds; the API would
// dominate its time), owned by author, in state.
func (app *App) insertOwned(t *testing.T, k ownedKind, author uint64, state string) ownedRecord {
	t.Helper()
	status, before := splitState(state)
	n := permSeq.Add(1)
	slug := fmt.Sprintf("perm-%s-%d", k.singular, n)
	name := fmt.Sprintf("Perm %s %d", k.singular, n)
	now := time.Now().UTC().Truncate(time.Second)
	var rec any
	var id *uint64
	switch k.plural {
	case "events":
		e := &models.Event{AuthorID: author, Status: status, TrashedStatus: before, Title: name, Slug: slug,
			Timezone: "UTC", StartUTC: now.Add(72 * time.Hour), EndUTC: now.Add(74 * time.Hour), PublishedAt: now}
		rec, id = e, &e.ID
	case "venues":
		v := &models.Venue{AuthorID: author, Status: status, TrashedStatus: before, Name: name, Slug: slug,
			ShowMap: true, ShowMapLink: true, PublishedAt: now}
		rec, id = v, &v.ID
	default:
		o := &models.Organizer{AuthorID: author, Status: status, TrashedStatus: before, Name: name, Slug: slug,
			PublishedAt: now}
		rec, id = o, &o.ID
	}
	if err := app.Store.DB().Omit("Venues", "Organizers", "Categories", "Tags", "Author", "Image", "Parent").
		Create(rec).Error; err != nil {
		t.Fatalf("inserting a %s: %v", k.singular, err)
	}
	return ownedRecord{id: *id, slug: slug}
}

// statusAsAdmin reads a record's status as the matrix's administrator, who reads every record in every status,
// trashed ones included (most roles of the matrix may not read a record they trashed).
func (m *writeMatrix) statusAsAdmin(k ownedKind, id uint64) string {
	m.t.Helper()
	admin := m.actors[len(m.actors)-1]
	if admin.role != string(models.RoleAdministrator) {
		m.t.Fatalf("the last actor is %s, not the administrator", admin.role)
	}
	status, _ := m.app.Get(fmt.Sprintf("/%s/%d", k.plural, id), admin.token).ExpectStatus(m.t, http.StatusOK).JSON(m.t)["status"].(string)
	return status
}

// writeMatrix runs the cases of one write route and method on an app of their own.
type writeMatrix struct {
	t      *testing.T
	app    *App
	actors []actor
	// other owns the records that are another user's for every actor (an author: editors may change their
	// published records, nobody else may).
	other actor
	// requests counts what the matrix sent.
	requests *atomic.Int64
	// state is the database checksum after the last refused request, "" once anything may have written since:
	// consecutive refusals share it, which halves the checksums taken.
	state string
}

// TestEveryWriteRouteByRoleOwnershipAndStatus sends every write route and method of the route table as every role,
// on the caller's own record and on another user's, in every status, and checks the exact answer: 401 for
// anonymous callers, 403 rest_forbidden without the right, 410 for a second trashing, else the write with the
// status the scale-back rule gives. Refused writes change nothing (the sweep's checksum of every table).
func TestEveryWriteRouteByRoleOwnershipAndStatus(t *testing.T) {
	probe := NewApp(t)
	var requests atomic.Int64
	routes := 0
	t.Run("routes", func(t *testing.T) {
		for _, route := range probe.Table {
			for _, e := range route.Endpoints {
				for _, method := range e.Methods {
					if method == http.MethodGet {
						continue
					}
					target, ok := writeTargets[route.Path]
					if ok && target.by == "" && method != http.MethodPost && target.by != "admin" {
						ok = false // only POST creates on a collection; another method needs rules of its own
					}
					if !ok {
						t.Errorf("%s %s has no permission case: add it to writeTargets with its rules", method, route.Path)
						continue
					}
					routes++
					path := route.Path
					t.Run(method+" "+path, func(t *testing.T) {
						t.Parallel()
						app := NewApp(t)
						actors := app.actors(t)
						login, token := app.User(models.RoleAuthor)
						m := &writeMatrix{t: t, app: app, actors: actors, requests: &requests,
							other: actor{role: "author", id: app.userID(login), token: token}}
						switch {
						case target.by == "admin":
							app.expectAdminOnly(t, actors, method, path)
						case target.kind == "categories" || target.kind == "tags":
							m.terms(target, method)
						case target.by == "":
							m.creates(ownedKinds[target.kind])
						default:
							m.items(ownedKinds[target.kind], target.by, method)
						}
					})
				}
			}
		}
	})
	t.Logf("permission matrix: %d write routes and methods, %d requests", routes, requests.Load())
}

// send sends one request of the matrix, and checks that a refused one changed nothing.
func (m *writeMatrix) send(what string, r Request, allowed bool) *Response {
	m.t.Helper()
	m.requests.Add(1)
	if allowed {
		m.state = ""
		return m.app.Do(r)
	}
	before := m.state
	if before == "" {
		before = checksum(m.t, m.app)
	}
	res := m.app.Do(r)
	if res.Status < 300 {
		m.t.Errorf("%s: allowed with %d, want a refusal: %s", what, res.Status, truncate(res.Body, 300))
	}
	m.state = checksum(m.t, m.app)
	if m.state != before {
		m.t.Errorf("%s: refused with %d but the database changed", what, res.Status)
		m.state = ""
	}
	return res
}

// expectRefusal checks a refused write's status and code.
func expectRefusal(t *testing.T, what string, res *Response, status int, code string) {
	t.Helper()
	if res.Status != status || !strings.Contains(string(res.Body), `"code":"`+code+`"`) {
		t.Errorf("%s: %d %s, want %d %s", what, res.Status, truncate(res.Body, 300), status, code)
	}
}

// items runs update (POST, PUT, PATCH) or DELETE on one record of kind k, addressed by ID or slug, for every
// actor, on their own record and another user's, in every state. Refusals reuse one record per owner and state
// (they change nothing); every allowed write gets a fresh record.
func (m *writeMatrix) items(k ownedKind, by, method string) {
	t := m.t
	shared := map[string]ownedRecord{}
	record := func(author uint64, state string, fresh bool) ownedRecord {
		key := fmt.Sprint(author, state)
		if rec, ok := shared[key]; ok && !fresh {
			return rec
		}
		rec := m.app.insertOwned(t, k, author, state)
		m.state = ""
		if !fresh {
			shared[key] = rec
		}
		return rec
	}
	// The update methods differ in the status they send, to cover the scale-back on update: POST sends publish,
	// PUT none (the status stays), PATCH draft.
	sent := map[string]string{http.MethodPost: models.StatusPublish, http.MethodPatch: models.StatusDraft}[method]
	for _, a := range m.actors {
		for _, own := range []bool{true, false} {
			if own && a.id == 0 {
				continue // anonymous callers own nothing
			}
			for _, state := range recordStates {
				owner := m.other.id
				if own {
					owner = a.id
				}
				allowed := a.token != "" && mayChange(a.role, own, state)
				status, _ := splitState(state)
				trashAgain := method == http.MethodDelete && status == models.StatusTrash
				rec := record(uint64(owner), state, allowed && !trashAgain)
				path := fmt.Sprintf("/%s/%d", k.plural, rec.id)
				if by == "slug" {
					path = "/" + k.plural + "/by-slug/" + rec.slug
				}
				what := fmt.Sprintf("%s %s as %s on %s %s record", method, path, a.role, map[bool]string{true: "their own", false: "another user's"}[own], state)
				req := Request{Method: method, Path: path, Token: a.token}
				newName := fmt.Sprintf("Changed %d", permSeq.Add(1))
				if method != http.MethodDelete {
					body := map[string]any{k.name: newName}
					if sent != "" {
						body["status"] = sent
					}
					req.Body = body
				}
				res := m.send(what, req, allowed && !trashAgain)
				switch {
				case a.token == "":
					expectRefusal(t, what, res, http.StatusUnauthorized, "rest_forbidden")
				case !allowed:
					expectRefusal(t, what, res, http.StatusForbidden, "rest_forbidden")
				case trashAgain:
					expectRefusal(t, what, res, http.StatusGone, k.singular+"-is-in-trash")
				case res.Status != http.StatusOK:
					t.Errorf("%s: %d %s, want 200", what, res.Status, truncate(res.Body, 300))
				case method == http.MethodDelete:
					if got := m.statusAsAdmin(k, rec.id); got != models.StatusTrash {
						t.Errorf("%s: stored status %q after the delete, want trash", what, got)
					}
				default:
					body := res.JSON(t)
					want := scaledBack(a.role, sent, status, false)
					if body[k.name] != newName || body["status"] != want || m.statusAsAdmin(k, rec.id) != want {
						t.Errorf("%s: %s %v and status %v (stored %q), want %q and %q", what, k.name, body[k.name],
							body["status"], m.statusAsAdmin(k, rec.id), newName, want)
					}
				}
			}
		}
	}
}

// creates runs POST on a collection of owned records for every actor, with every status or none, as themselves
// and naming another author.
func (m *writeMatrix) creates(k ownedKind) {
	t := m.t
	for _, a := range m.actors {
		for _, sent := range []string{"", "publish", "future", "draft", "pending", "private"} {
			for _, forOther := range []bool{false, true} {
				if forOther && rankOf(a.role) < roleRanks["contributor"] {
					continue // refused before the author is looked at; the plain case covers them
				}
				name := fmt.Sprintf("Created %s %d", k.singular, permSeq.Add(1))
				body := map[string]any{k.name: name}
				if k.plural == "events" {
					body = eventBody(name, 3)
				}
				if sent != "" {
					body["status"] = sent
				}
				if forOther {
					body["author"] = m.other.id
				}
				what := fmt.Sprintf("POST /%s as %s with status %q, author other: %v", k.plural, a.role, sent, forOther)
				mayAssign := !forOther || rankOf(a.role) >= roleRanks["editor"]
				allowed := rankOf(a.role) >= roleRanks["contributor"] && mayAssign
				res := m.send(what, Request{Method: http.MethodPost, Path: "/" + k.plural, Token: a.token, Body: body}, allowed)
				switch {
				case a.token == "":
					expectRefusal(t, what, res, http.StatusUnauthorized, "rest_forbidden")
				case !allowed && !mayAssign && k.plural == "events":
					// Events report another author as a bad parameter (docs/api.md, Events: Writes).
					expectRefusal(t, what, res, http.StatusBadRequest, "rest_invalid_param")
				case !allowed && !mayAssign:
					expectRefusal(t, what, res, http.StatusForbidden, "rest_cannot_edit_others")
				case !allowed:
					expectRefusal(t, what, res, http.StatusForbidden, "rest_forbidden")
				case res.Status != http.StatusCreated:
					t.Errorf("%s: %d %s, want 201", what, res.Status, truncate(res.Body, 300))
				default:
					got := res.JSON(t)
					wantAuthor := fmt.Sprint(a.id)
					if forOther {
						wantAuthor = fmt.Sprint(m.other.id)
					}
					if want := scaledBack(a.role, sent, "", true); got["status"] != want || got["author"] != wantAuthor {
						t.Errorf("%s: status %v author %v, want %s and %s", what, got["status"], got["author"], want, wantAuthor)
					}
				}
			}
		}
	}
}

// terms runs a category or tag write for every actor: categories need the author role or above, tags the editor
// role or above; terms have no owner or status.
func (m *writeMatrix) terms(target writeTarget, method string) {
	t := m.t
	least := map[string]string{"categories": "author", "tags": "editor"}[target.kind]
	admin := m.actors[len(m.actors)-1].token
	var shared uint64
	term := func(fresh bool) uint64 {
		if shared != 0 && !fresh {
			return shared
		}
		name := fmt.Sprintf("Term %d", permSeq.Add(1))
		id := m.app.post(t, admin, "/"+target.kind, map[string]any{"name": name})
		m.state = ""
		if !fresh {
			shared = id
		}
		return id
	}
	for _, a := range m.actors {
		allowed := a.token != "" && rankOf(a.role) >= roleRanks[least]
		name := fmt.Sprintf("Named %d", permSeq.Add(1))
		req := Request{Method: method, Path: "/" + target.kind, Token: a.token, Body: map[string]any{"name": name}}
		want := http.StatusOK
		switch {
		case target.by == "":
			want = http.StatusCreated
		case method == http.MethodDelete:
			req.Path, req.Body = fmt.Sprintf("/%s/%d", target.kind, term(allowed)), nil
		default:
			req.Path = fmt.Sprintf("/%s/%d", target.kind, term(allowed))
		}
		what := fmt.Sprintf("%s %s as %s", method, req.Path, a.role)
		res := m.send(what, req, allowed)
		switch {
		case a.token == "":
			expectRefusal(t, what, res, http.StatusUnauthorized, "rest_forbidden")
		case !allowed:
			expectRefusal(t, what, res, http.StatusForbidden, "rest_forbidden")
		case res.Status != want:
			t.Errorf("%s: %d %s, want %d", what, res.Status, truncate(res.Body, 300), want)
		case method != http.MethodDelete && res.JSON(t)["name"] != name:
			t.Errorf("%s: name %v, want %s", what, res.JSON(t)["name"], name)
		case method == http.MethodDelete:
			m.app.Get(req.Path).ExpectError(t, http.StatusNotFound, "rest_term_invalid")
		}
	}
}

// visibilityFixture is a record of the read matrix: its kind, owner, state ("protected" is published with a
// password), and a marker that only its protected fields (description, excerpt, and the kind's details) contain.
type visibilityFixture struct {
	kind      ownedKind
	owner     string // the role of the actor who owns it: contributor or author
	state     string
	protected bool
	id        uint64
	slug      string
	marker    string
}

// fixturePassword is the password of every protected record of the read matrix; it must never appear in an answer.
const fixturePassword = "pw-Never-Shown-42"

// ruleState is the state the permission rules see: a protected record is a published one.
func (f visibilityFixture) ruleState() string {
	if f.protected {
		return models.StatusPublish
	}
	return f.state
}

// readable tells whether the viewer may read the record at all; full whether it sees its protected fields (with
// the password when withPassword).
func (f visibilityFixture) readable(viewer actor) bool {
	return mayRead(viewer.role, viewer.role == f.owner, f.ruleState())
}

func (f visibilityFixture) full(viewer actor, withPassword bool) bool {
	return f.readable(viewer) && (!f.protected || withPassword || mayChange(viewer.role, viewer.role == f.owner, models.StatusPublish))
}

// readTargets maps every read route of the route table to the part of the read matrix that covers it (public:
// every role reads it; single, list, terms, term: the subtests of those names). A read route missing here fails
// TestEveryReadRouteByRoleAndStatus.
var readTargets = map[string]string{
	"/": "public", "/doc": "public",
	"/events": "list", "/events/:id": "single", "/events/by-slug/:slug": "single",
	"/events.ics": "list", "/events/:id.ics": "single",
	"/venues": "list", "/venues/:id": "single", "/venues/by-slug/:slug": "single",
	"/organizers": "list", "/organizers/:id": "single", "/organizers/by-slug/:slug": "single",
	"/categories": "terms", "/categories/:id": "term", "/tags": "terms", "/tags/:id": "term",
	"/webhooks": "admin", "/webhooks/:id": "admin", "/webhooks/:id/deliveries": "admin",
}

// readMatrix is the state of TestEveryReadRouteByRoleAndStatus.
type readMatrix struct {
	t        *testing.T
	app      *App
	actors   []actor
	admin    string
	fixtures []visibilityFixture
	requests int
}

// get sends a GET as the viewer and checks that no answer ever shows a password.
func (m *readMatrix) get(path string, viewer actor) *Response {
	m.t.Helper()
	m.requests++
	res := m.app.Get(path, viewer.token)
	documents := path == "/" || path == "/doc" // they describe the password parameter
	if strings.Contains(string(res.Body), fixturePassword) || (!documents && strings.Contains(string(res.Body), `"password"`)) {
		m.t.Errorf("GET %s as %s shows a password: %s", path, viewer.role, truncate(res.Body, 300))
	}
	return res
}

// expectMarker checks that a raw answer contains the marker exactly when it should.
func expectMarker(t *testing.T, what string, res *Response, marker string, want bool) {
	t.Helper()
	if got := strings.Contains(string(res.Body), marker); got != want {
		t.Errorf("%s: protected fields (%s) shown: %v, want %v; body %s", what, marker, got, want, truncate(res.Body, 400))
	}
}

// create makes a fixture through the API as an administrator: owned by owner, in state (the trash through a
// DELETE), with the marker in its protected fields, and, for events, the category Shared and the tag shared.
func (m *readMatrix) create(k ownedKind, owner actor, state string) visibilityFixture {
	t := m.t
	n := permSeq.Add(1)
	f := visibilityFixture{kind: k, owner: owner.role, state: state, protected: state == "protected",
		marker: fmt.Sprintf("mk%dx", n)}
	status, _ := splitState(state)
	if f.protected {
		status = models.StatusPublish
	}
	if status == models.StatusTrash {
		_, status = splitState(state)
	}
	name := fmt.Sprintf("Visible %s %d", k.singular, n)
	body := map[string]any{k.name: name, "status": status, "author": owner.id,
		"description": "<p>About " + f.marker + "</p>", "excerpt": "In short " + f.marker}
	switch k.plural {
	case "events":
		body = eventBody(name, 3, "status", status, "author", owner.id, "description", body["description"],
			"excerpt", body["excerpt"], "website", "https://"+f.marker+".example/", "categories", []any{"Shared"},
			"tags", []any{"shared"})
	case "venues":
		body["address"], body["phone"] = "1 "+f.marker+" Road", "555 "+f.marker
	default:
		body["phone"], body["website"] = "555 "+f.marker, "https://"+f.marker+".example/"
	}
	if f.protected {
		body["password"] = fixturePassword
	}
	rec := m.app.Do(Request{Method: http.MethodPost, Path: "/" + k.plural, Token: m.admin, Body: body}).
		ExpectStatus(t, http.StatusCreated).JSON(t)
	f.id, f.slug = idOf(t, rec), rec["slug"].(string)
	if strings.HasPrefix(state, "trash/") {
		m.app.Do(Request{Method: http.MethodDelete, Path: fmt.Sprintf("/%s/%d", k.plural, f.id), Token: m.admin}).
			ExpectStatus(t, http.StatusOK)
	}
	return f
}

// TestEveryReadRouteByRoleAndStatus reads records of every kind, owner and status (every status a record can have,
// the trash from a published and from a draft record, and password-protected) as every role, through every read
// route of the route table: single reads by ID and slug (with and without the password), lists with every status
// filter, include, the venue and organizer event filter, and the term post/event filters. What a caller may read
// follows the visibility rules; a protected record's details (marked with a unique string) appear only to callers who
// may edit it or sent its password, and no answer ever contains a password.
func TestEveryReadRouteByRoleAndStatus(t *testing.T) {
	app := NewApp(t)
	m := &readMatrix{t: t, app: app, actors: app.actors(t)}
	m.admin = m.actors[len(m.actors)-1].token
	owners := []actor{m.actors[2], m.actors[3]} // the contributor and the author
	for _, kind := range []string{"events", "venues", "organizers"} {
		for _, owner := range owners {
			for _, state := range append(append([]string{}, recordStates...), "protected") {
				m.fixtures = append(m.fixtures, m.create(ownedKinds[kind], owner, state))
			}
		}
	}
	for _, route := range app.Table {
		for _, e := range route.Endpoints {
			if _, ok := readTargets[route.Path]; !ok && slices.Contains(e.Methods, http.MethodGet) {
				t.Errorf("GET %s has no visibility case: add it to readTargets", route.Path)
			}
		}
	}
	t.Run("public routes", func(t *testing.T) {
		for _, path := range []string{"/", "/doc"} {
			for _, a := range m.actors {
				m.get(path, a).ExpectStatus(t, http.StatusOK)
			}
		}
	})
	t.Run("administrators' routes", func(t *testing.T) {
		for path, target := range readTargets {
			if target == "admin" {
				m.app.expectAdminOnly(t, m.actors, http.MethodGet, path)
			}
		}
	})
	t.Run("single reads", m.singleReads)
	t.Run("lists", m.lists)
	t.Run("term filters", m.termFilters)
	t.Run("embedded records", m.embeds)
	t.Logf("visibility matrix: %d records, %d requests", len(m.fixtures), m.requests)
}

// singleReads reads every fixture by ID and by slug (events also as iCalendar) as every role, and the protected ones
// with their password.
func (m *readMatrix) singleReads(t *testing.T) {
	for _, f := range m.fixtures {
		for _, a := range m.actors {
			paths := []string{fmt.Sprintf("/%s/%d", f.kind.plural, f.id), "/" + f.kind.plural + "/by-slug/" + f.slug}
			if f.kind.plural == "events" {
				paths = append(paths, fmt.Sprintf("/events/%d.ics", f.id))
			}
			for _, path := range paths {
				what := fmt.Sprintf("GET %s (%s %s's) as %s", path, f.state, f.owner, a.role)
				m.expectSingle(t, what, f, a, m.get(path, a), false)
				if f.protected {
					res := m.get(path+"?password="+fixturePassword, a)
					m.expectSingle(t, what+" with the password", f, a, res, true)
				}
			}
		}
	}
}

// expectSingle checks a single read: events refuse what the caller may not see in full; venues
// and organizers refuse what it may not read and redact the protected ones.
func (m *readMatrix) expectSingle(t *testing.T, what string, f visibilityFixture, a actor, res *Response, withPassword bool) {
	t.Helper()
	status, _ := splitState(f.state)
	own := a.role == f.owner
	switch {
	case f.kind.plural == "events" && status == models.StatusTrash && !mayChange(a.role, own, f.state):
		expectRefusal(t, what, res, http.StatusForbidden, "event-no-longer-available")
	case !f.readable(a):
		expectRefusal(t, what, res, http.StatusForbidden, f.kind.singular+"-not-accessible")
	case f.kind.plural == "events" && !f.full(a, withPassword):
		expectRefusal(t, what, res, http.StatusForbidden, "event-password-protected")
	case res.Status != http.StatusOK:
		t.Errorf("%s: %d %s, want 200", what, res.Status, truncate(res.Body, 300))
	default:
		expectMarker(t, what, res, f.marker, f.full(a, withPassword))
	}
	if res.Status >= 400 {
		expectMarker(t, what, res, f.marker, false)
	}
}

// lists lists every kind with every status filter as every role: the records listed are exactly those with a status
// the filter selects that the caller may read (a list never shows what a single read refuses), and
// protected ones are redacted for callers who may not edit them. The iCalendar feed of each event list holds the
// same events, redacted alike.
func (m *readMatrix) lists(t *testing.T) {
	var eventIDs []uint64
	for _, f := range m.fixtures {
		if f.kind.plural == "events" {
			eventIDs = append(eventIDs, f.id)
		}
	}
	filters := []struct {
		query    string
		statuses []string // nil: every status but trash
	}{
		{"", nil}, {"status=publish", []string{"publish"}}, {"status=any", nil},
		{"status=draft,pending", []string{"draft", "pending"}}, {"status=future", []string{"future"}},
		{"status=private", []string{"private"}}, {"status=trash", []string{"trash"}},
		{"status[]=publish&status[]=trash", []string{"publish", "trash"}},
		{"include=" + joinIDs(eventIDs...), nil},
	}
	for _, kind := range []string{"events", "venues", "organizers"} {
		for _, filter := range filters {
			if strings.HasPrefix(filter.query, "include") && kind != "events" {
				continue
			}
			for _, a := range m.actors {
				path := "/" + kind + "?per_page=50&" + filter.query
				what := fmt.Sprintf("GET %s as %s", path, a.role)
				res := m.get(path, a)
				var feed *Response
				if kind == "events" {
					feed = m.get("/events.ics?"+filter.query, a)
				}
				visitorsMay := filter.query == "" || filter.query == "status=publish" || strings.HasPrefix(filter.query, "include")
				if rankOf(a.role) < roleRanks["contributor"] && !visitorsMay {
					expectInvalid(t, res, "status")
					if feed != nil {
						expectInvalid(t, feed, "status")
					}
					continue
				}
				if res.Status != http.StatusOK {
					t.Errorf("%s: %d %s", what, res.Status, truncate(res.Body, 300))
					continue
				}
				listed := map[uint64]bool{}
				ids := idsOf(res.JSON(t)[kind])
				for _, id := range ids {
					listed[id] = true
				}
				if feed != nil {
					if got := uidIDs(t, readICal(t, feed).Events); !slices.Equal(got, ids) {
						t.Errorf("the feed of %s holds %v, the list %v", what, got, ids)
					}
				}
				for _, f := range m.fixtures {
					if f.kind.plural != kind {
						continue
					}
					status, _ := splitState(f.state)
					if f.protected {
						status = models.StatusPublish
					}
					selected := (filter.statuses == nil && status != models.StatusTrash) || contains(filter.statuses, status)
					if want := selected && f.readable(a); listed[f.id] != want {
						t.Errorf("%s: the %s %s's record %d listed: %v, want %v", what, f.state, f.owner, f.id, listed[f.id], want)
					}
					expectMarker(t, fmt.Sprintf("%s, record %d (%s %s's)", what, f.id, f.state, f.owner), res, f.marker,
						listed[f.id] && f.full(a, false))
					if feed != nil {
						expectMarker(t, fmt.Sprintf("the feed of %s, record %d (%s %s's)", what, f.id, f.state, f.owner),
							feed, f.marker, listed[f.id] && f.full(a, false))
					}
				}
			}
		}
	}
}

// termFilters lists the categories and tags of every event fixture (post and event) as every role: an event's
// terms show only to callers who may read it, and for a protected event only to those who may edit it (as its
// embedded terms are redacted).
func (m *readMatrix) termFilters(t *testing.T) {
	for _, f := range m.fixtures {
		if f.kind.plural != "events" {
			continue
		}
		for _, a := range m.actors {
			for _, q := range []string{"/categories?hide_empty=0&post=", "/tags?hide_empty=0&event="} {
				path := q + fmt.Sprint(f.id)
				res := m.get(path, a).ExpectStatus(t, http.StatusOK)
				key := strings.TrimPrefix(strings.SplitN(q, "?", 2)[0], "/")
				got := len(res.JSON(t)[key].([]any))
				if want := f.full(a, false); (got == 1) != want || got > 1 {
					t.Errorf("GET %s as %s (%s %s's event): %d terms, want them shown: %v", path, a.role, f.state, f.owner, got, want)
				}
			}
		}
	}
	shared := m.get("/categories?hide_empty=0&search=shared", m.actors[0]).ExpectStatus(t, http.StatusOK).JSON(t)
	for _, term := range shared["categories"].([]any) {
		for _, a := range m.actors {
			m.get(fmt.Sprintf("/categories/%v", term.(map[string]any)["id"]), a).ExpectStatus(t, http.StatusOK)
		}
	}
}

// embeds reads an event that embeds a protected venue, a draft venue and a protected organizer, and a protected
// event with a published venue, organizer and category, as every role. Embedded records are shown whatever their
// status, as the reference's get_venue_data does (linking a venue to a published event publishes it there), but a
// protected one is redacted unless the caller may edit it; a protected event shows none of its links, in lists,
// in the venue and organizer event filter, and in the term filters.
func (m *readMatrix) embeds(t *testing.T) {
	author := m.actors[3]
	record := func(k ownedKind, status string, protected bool, extra ...any) (uint64, string) {
		marker := fmt.Sprintf("mk%dx", permSeq.Add(1))
		body := map[string]any{k.name: "Embedded " + marker[2:], "status": status, "author": author.id,
			"description": "<p>About " + marker + "</p>"}
		if k.plural == "events" {
			body = eventBody("Embedding "+marker[2:], 3, "status", status, "author", author.id,
				"description", body["description"])
		}
		for i := 0; i+1 < len(extra); i += 2 {
			body[extra[i].(string)] = extra[i+1]
		}
		if protected {
			body["password"] = fixturePassword
		}
		rec := m.app.Do(Request{Method: http.MethodPost, Path: "/" + k.plural, Token: m.admin, Body: body}).
			ExpectStatus(t, http.StatusCreated).JSON(t)
		return idOf(t, rec), marker
	}
	venues, organizers, events := ownedKinds["venues"], ownedKinds["organizers"], ownedKinds["events"]
	protectedVenue, protectedVenueMarker := record(venues, "publish", true, "address", "9 Locked Road")
	draftVenue, draftVenueMarker := record(venues, "draft", false)
	protectedOrganizer, protectedOrganizerMarker := record(organizers, "publish", true)
	embedding, _ := record(events, "publish", false, "venue", []any{protectedVenue, draftVenue},
		"organizer", []any{protectedOrganizer})
	publicVenue, publicVenueMarker := record(venues, "publish", false)
	publicOrganizer, publicOrganizerMarker := record(organizers, "publish", false)
	hidden, hiddenMarker := record(events, "publish", true, "venue", publicVenue, "organizer", []any{publicOrganizer},
		"categories", []any{"Hidden category"})
	for _, a := range m.actors {
		editsThem := mayChange(a.role, a.role == "author", models.StatusPublish)
		single := m.get(fmt.Sprintf("/events/%d", embedding), a).ExpectStatus(t, http.StatusOK)
		list := m.get("/events?per_page=50", a).ExpectStatus(t, http.StatusOK)
		feed := m.get("/events.ics", a).ExpectStatus(t, http.StatusOK)
		expectMarker(t, "the feed as "+a.role+", the protected event's details", feed, hiddenMarker, editsThem)
		if nameAlone := "LOCATION:Embedded " + protectedVenueMarker[2:] + "\r\n"; strings.Contains(string(feed.Body), nameAlone) == editsThem {
			t.Errorf("the feed as %s: the protected venue's location shown as its name alone: %v", a.role, !editsThem)
		}
		for what, res := range map[string]*Response{"the embedding event": single, "the event list": list} {
			what += " as " + a.role
			expectMarker(t, what+", protected venue", res, protectedVenueMarker, editsThem)
			expectMarker(t, what+", protected organizer", res, protectedOrganizerMarker, editsThem)
			expectMarker(t, what+", draft venue", res, draftVenueMarker, true)
			if !strings.Contains(string(res.Body), "Embedded "+protectedVenueMarker[2:]) {
				t.Errorf("%s: the protected venue's name is hidden", what)
			}
		}
		for _, marker := range []string{hiddenMarker, publicVenueMarker, publicOrganizerMarker} {
			expectMarker(t, "the event list as "+a.role+", the protected event's details and links", list, marker, editsThem)
		}
		for _, k := range []ownedKind{venues, organizers} {
			path := fmt.Sprintf("/%s?event=%d", k.plural, hidden)
			got := idsOf(m.get(path, a).ExpectStatus(t, http.StatusOK).JSON(t)[k.plural])
			if (len(got) == 1) != editsThem || len(got) > 1 {
				t.Errorf("GET %s as %s: %v, want the protected event's %s shown: %v", path, a.role, got, k.singular, editsThem)
			}
		}
		cats := m.get(fmt.Sprintf("/categories?hide_empty=0&post=%d", hidden), a).ExpectStatus(t, http.StatusOK).JSON(t)
		if n := len(cats["categories"].([]any)); (n == 1) != editsThem || n > 1 {
			t.Errorf("the protected event's categories as %s: %d, want shown: %v", a.role, n, editsThem)
		}
		unlocked := m.get(fmt.Sprintf("/events/%d?password=%s", hidden, fixturePassword), a).ExpectStatus(t, http.StatusOK)
		expectMarker(t, "the protected event unlocked as "+a.role, unlocked, publicVenueMarker, true)
	}
}
