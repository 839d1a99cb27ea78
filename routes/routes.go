// Package routes lists the whole API surface in one table and wires it, with the middleware, into one handler.
package routes

import (
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/gin-gonic/gin"

	"calendar/config"
	"calendar/controllers"
	"calendar/controllers/endpoint"
	"calendar/controllers/openapi"
	"calendar/middleware"
	"calendar/models"
)

// Table is every route under the namespace {prefix}/calendar/events/v1, in the order the index lists them.
// The router, the namespace index and the OpenAPI document are all built from it.
func Table(app *controllers.App) []endpoint.Route {
	index := &controllers.IndexController{App: app}
	doc := &controllers.DocController{App: app}
	events := &controllers.EventController{App: app}
	table := []endpoint.Route{
		{Path: "/", Endpoints: []endpoint.Endpoint{
			endpoint.Get(index.Index).
				Doc("Namespace index", "The routes of the namespace with their methods and parameters.").
				Respond(http.StatusOK, "NamespaceIndex", "The namespace index").
				Respond(http.StatusNotFound, "Error", "Unknown namespace (rest_invalid_namespace)"),
		}},
		{Path: "/doc", Endpoints: []endpoint.Endpoint{
			endpoint.Get(doc.Doc).
				Doc("OpenAPI document", "This document: every route, parameter, request body, response and error "+
					"of the namespace, generated from the route table that serves requests. A page rendering it "+
					"for people is at /docs on the server root.").
				Respond(http.StatusOK, "OpenAPIDocument", "The OpenAPI 3 document of the interface"),
		}},
		{Path: "/events", Endpoints: []endpoint.Endpoint{
			endpoint.Get(events.List).ClockedBy(events.ListClock).StreamedWhen(controllers.WantsCalendar).
				Doc("List events", "The events the caller may see that pass every filter, ordered by start date then ID, "+
					"one page at a time. Events hidden from listings are never listed. Without date parameters the window "+
					"is 00:00 today (site time) to 23:59:59 of the day two years ahead; any starts_*/ends_* parameter drops "+
					"it, include drops every date bound. geoloc=true keeps events at a venue with coordinates; "+
					"geoloc_lat and geoloc_lng (with or without geoloc=true) keep events with a venue within "+
					"geoloc_radius geoloc_unit of that point by great-circle distance (default radius and unit: "+
					"the service's configuration); geoloc=false switches the geolocation filter off. Totals are in "+
					"X-TEC-Total and X-TEC-TotalPages, links in Link. With Accept preferring text/calendar to JSON "+
					"(by q-value; JSON wins ties, */* and a missing Accept) the answer is the iCalendar feed of "+
					"/events.ics for the same query instead: page and per_page are then checked but ignored.").
				Respond(http.StatusOK, "EventList", "A page of events, or (Accept: text/calendar) the iCalendar feed").
				RespondAs(http.StatusOK, "text/calendar", "ICalendar", "").
				Respond(http.StatusBadRequest, "Error", "A bad filter (rest_invalid_param)").
				Respond(http.StatusNotFound, "Error", "A page past the last (event-archive-page-not-found)").
				Respond(http.StatusGone, "Error", controllers.SyncTokenExpiredDoc),
			endpoint.Post(events.Create).Require("title", "start_date", "end_date").Authenticated().
				Doc("Create an event", "Creates an event; contributors and above. Users who cannot publish get pending "+
					"for publish or future, and draft without a status. The end may not be before the start.").
				Respond(http.StatusCreated, "Event", "The event created; Location names it").
				Respond(http.StatusBadRequest, "Error", "Missing or bad parameters").
				Respond(http.StatusUnauthorized, "Error", "No credentials (rest_forbidden)").
				Respond(http.StatusForbidden, "Error", "The caller may not create events (rest_forbidden)"),
		}},
		{Path: "/events.ics", Endpoints: []endpoint.Endpoint{
			endpoint.Get(events.Feed).ClockedBy(events.ListClock).StreamedWhen(controllers.Always).
				Doc("Subscribe to events (iCalendar feed)", controllers.FeedDoc).
				RespondAs(http.StatusOK, "text/calendar", "ICalendar", "The feed").
				Respond(http.StatusBadRequest, "Error", "A bad filter (rest_invalid_param)"),
		}},
		{Path: "/events/:id", Endpoints: eventItemEndpoints(events.ReadByID, events.UpdateByID, events.DeleteByID)},
		{Path: "/events/:id.ics", Endpoints: []endpoint.Endpoint{
			endpoint.Get(events.ReadICalByID).Dated().
				Doc("Read an event as iCalendar", "The event as an iCalendar object with one VEVENT (and the "+
					"VTIMEZONE it needs), built as in the feed of /events.ics. The read rules and errors of GET "+
					"/events/{id} apply (JSON error bodies): 404 for an unknown event, 403 when trashed, not "+
					"readable, or password-protected without password (editors of the event need none), so the "+
					"event is never redacted here. Carries Last-Modified as GET /events/{id} does.").
				RespondAs(http.StatusOK, "text/calendar", "ICalendar", "The event").
				Respond(http.StatusBadRequest, "Error", "A bad parameter (rest_invalid_param)").
				Respond(http.StatusForbidden, "Error", "The event is trashed, not accessible, or password-protected").
				Respond(http.StatusTooManyRequests, "Error", tooManyPasswords).
				Respond(http.StatusNotFound, "Error", "No such event (rest-event-not-found)"),
		}},
		{Path: "/events/by-slug/:slug", Endpoints: eventItemEndpoints(events.ReadBySlug, events.UpdateBySlug,
			events.DeleteBySlug)},
	}
	table = append(table, venueRoutes(app)...)
	table = append(table, organizerRoutes(app)...)
	table = append(table, termRoutes(app)...)
	table = append(table, webhookRoutes(app)...)
	index.Routes = table
	doc.Routes = table
	return table
}

// tooManyPasswords documents the 429 of reads that take a record's password.
const tooManyPasswords = "Too many wrong passwords from this client address, or for this record, within a minute " +
	"(rest_too_many_requests, with Retry-After): CALENDAR_PASSWORD_FAILURES_PER_MINUTE per address, three times as " +
	"many per record. Until then any password is refused, the right one too."

// linkedEndpoints are the handlers of one kind's routes, before documentation.
type linkedEndpoints struct {
	list, create                           endpoint.Endpoint
	read, update, remove                   endpoint.Endpoint
	readBySlug, updateBySlug, removeBySlug endpoint.Endpoint
}

// linkedRoutes documents and lists one kind's routes: the collection, the item by ID and the item by slug.
func linkedRoutes(name, plural, schema string, e linkedEndpoints) []endpoint.Route {
	a := "a " + name
	if strings.HasPrefix(name, "o") {
		a = "an " + name
	}
	item := func(read, update, remove endpoint.Endpoint, by string) []endpoint.Endpoint {
		return []endpoint.Endpoint{
			read.Dated().Doc("Read "+a+" "+by, "Records that are not published need read rights (403 "+name+
				"-not-accessible, also for trashed ones). A password-protected "+name+" comes back with its details "+
				"blanked (its name stays visible) unless password matches or the caller can edit it. Includes json_ld. "+
				"Last-Modified is the "+name+"'s modification date.").
				Respond(http.StatusOK, schema, "The "+name).
				Respond(http.StatusForbidden, "Error", name+"-not-accessible").
				Respond(http.StatusTooManyRequests, "Error", tooManyPasswords).
				Respond(http.StatusNotFound, "Error", "No such "+name+" (rest-"+name+"-not-found)"),
			update.Authenticated().Conditional().Doc("Update "+a+" "+by, "POST, PUT and PATCH take the same parameters; omitted "+
				"parameters are unchanged and \"\" clears an optional one. The slug does not follow renames. Needs "+
				"edit rights on the "+name+"; a status restores a trashed one.").
				Respond(http.StatusOK, schema, "The updated "+name).
				Respond(http.StatusBadRequest, "Error", "A bad parameter (rest_invalid_param)").
				Respond(http.StatusUnauthorized, "Error", "No credentials").
				Respond(http.StatusForbidden, "Error", "Not allowed to edit this "+name).
				Respond(http.StatusNotFound, "Error", "No such "+name+" (rest-"+name+"-not-found)"),
			remove.Authenticated().Conditional().Doc("Delete "+a+" "+by, "Moves the "+name+" to the trash (200 with status "+
				"trash); a second delete is 410 "+name+"-is-in-trash; force=true deletes it for good (200 with the "+
				name+" as it was). Either way it is unlinked, and only it, from every event.").
				Respond(http.StatusOK, schema, "The trashed or deleted "+name).
				Respond(http.StatusUnauthorized, "Error", "No credentials").
				Respond(http.StatusForbidden, "Error", "Not allowed to delete this "+name).
				Respond(http.StatusNotFound, "Error", "No such "+name+" (rest-"+name+"-not-found)").
				Respond(http.StatusGone, "Error", "Already in the trash ("+name+"-is-in-trash)"),
		}
	}
	return []endpoint.Route{
		{Path: "/" + plural, Endpoints: []endpoint.Endpoint{
			e.list.ClockedBy(controllers.UpcomingClock).Doc("List "+plural, "Newest first (publication date). Visitors see published "+plural+" only and "+
				"may only ask for status=publish; contributors and above may ask for any statuses (by default every status "+
				"but trash) and see what they may read one by one: published "+plural+" and their own, all of them for "+
				"editors. search matches when every word fragment "+
				"appears, ignoring case, in one of the searched fields ("+strings.Join(controllers.LinkedSearchedFields[name], ", ")+
				"). has_events=true keeps "+plural+" linked to an event that is not a draft, pending or trashed, false "+
				"exactly the others; only_with_upcoming=true keeps those linked to an event you may see that has not "+
				"started; event keeps those linked to that event (400 if it does not exist; none when the caller may not see its "+
				"links: it may not read the event, or a password protects it and it may not edit it). Filters combine; total "+
				"and X-TEC-Total count them all. A page past the last is 404 "+name+"-archive-page-not-found.").
				Respond(http.StatusOK, schema+"List", "One page of "+plural).
				Respond(http.StatusBadRequest, "Error", "A bad parameter (rest_invalid_param)").
				Respond(http.StatusNotFound, "Error", "A page past the last ("+name+"-archive-page-not-found)").
				Respond(http.StatusGone, "Error", controllers.SyncTokenExpiredDoc),
			e.create.Require(name).Authenticated().Doc("Create "+a, "Contributors and above. A "+name+" identical "+
				"to one you can read that is not in the trash (the same name ignoring case, and the same value for "+
				"every parameter sent) is returned with 200 instead of being created again; any difference makes a "+
				"new "+name+" (201 with Location). The slug comes from the name, made unique with -2, -3, ….").
				Respond(http.StatusCreated, schema, "The new "+name).
				Respond(http.StatusOK, schema, "An identical "+name+" that already existed").
				Respond(http.StatusBadRequest, "Error", "A missing or bad parameter").
				Respond(http.StatusUnauthorized, "Error", "No credentials").
				Respond(http.StatusForbidden, "Error", "Not allowed to create "+plural),
		}},
		{Path: "/" + plural + "/:id", Endpoints: item(e.read, e.update, e.remove, "by ID")},
		{Path: "/" + plural + "/by-slug/:slug", Endpoints: item(e.readBySlug, e.updateBySlug, e.removeBySlug, "by slug")},
	}
}

// VenueRoutes are the venue routes for the route table.
func venueRoutes(app *controllers.App) []endpoint.Route {
	vc := controllers.VenueController{App: app}
	return linkedRoutes("venue", "venues", "Venue", linkedEndpoints{
		list: endpoint.Get(vc.List), create: endpoint.Post(vc.Create),
		read: endpoint.Get(vc.Read), update: endpoint.Update(vc.Update), remove: endpoint.Delete(vc.Delete),
		readBySlug: endpoint.Get(vc.ReadBySlug), updateBySlug: endpoint.Update(vc.UpdateBySlug), removeBySlug: endpoint.Delete(vc.DeleteBySlug),
	})
}

// OrganizerRoutes are the organizer routes for the route table.
func organizerRoutes(app *controllers.App) []endpoint.Route {
	oc := controllers.OrganizerController{App: app}
	return linkedRoutes("organizer", "organizers", "Organizer", linkedEndpoints{
		list: endpoint.Get(oc.List), create: endpoint.Post(oc.Create),
		read: endpoint.Get(oc.Read), update: endpoint.Update(oc.Update), remove: endpoint.Delete(oc.Delete),
		readBySlug: endpoint.Get(oc.ReadBySlug), updateBySlug: endpoint.Update(oc.UpdateBySlug), removeBySlug: endpoint.Delete(oc.DeleteBySlug),
	})
}

// eventItemEndpoints are the endpoints of one event, addressed by ID or by slug.
func eventItemEndpoints[R, U, D any](read func(*gin.Context, *R) error, update func(*gin.Context, *U) error,
	remove func(*gin.Context, *D) error) []endpoint.Endpoint {
	return []endpoint.Endpoint{
		endpoint.Get(read).Dated().
			Doc("Read an event", "The event with its JSON-LD. A trashed event is readable by its editors only "+
				"(others get 403 event-no-longer-available); an unpublished one needs read rights (403 "+
				"event-not-accessible); a password-protected one needs its password unless the caller can edit it "+
				"(403 event-password-protected). Last-Modified is the latest modification date of the event, its "+
				"venues and its organizers (not of its categories and tags: a renamed term or a new term count "+
				"changes the ETag only).").
			Respond(http.StatusOK, "Event", "The event").
			Respond(http.StatusBadRequest, "Error", "A bad parameter (rest_invalid_param)").
			Respond(http.StatusForbidden, "Error", "The event is trashed, not accessible, or password-protected").
			Respond(http.StatusTooManyRequests, "Error", tooManyPasswords).
			Respond(http.StatusNotFound, "Error", "No such event (rest-event-not-found)"),
		endpoint.Update(update).Authenticated().Conditional().
			Doc("Update an event", "Changes the fields sent; omitted fields are unchanged, lists sent replace the "+
				"current ones. Sending one of start_date and end_date keeps the other. A status restores a trashed "+
				"event; status trash trashes it. POST, PUT and PATCH are the same.").
			Respond(http.StatusOK, "Event", "The event as updated").
			Respond(http.StatusBadRequest, "Error", "Bad parameters").
			Respond(http.StatusUnauthorized, "Error", "No credentials (rest_forbidden)").
			Respond(http.StatusForbidden, "Error", "The caller may not edit this event (rest_forbidden)").
			Respond(http.StatusNotFound, "Error", "No such event (rest-event-not-found)"),
		endpoint.Delete(remove).Authenticated().Conditional().
			Doc("Delete an event", "Moves the event to the trash and answers it with status trash; a second delete "+
				"is 410 event-is-in-trash. force=true deletes it permanently and answers the event as it was.").
			Respond(http.StatusOK, "Event", "The event trashed, or as it was before a permanent delete").
			Respond(http.StatusUnauthorized, "Error", "No credentials (rest_forbidden)").
			Respond(http.StatusForbidden, "Error", "The caller may not delete this event (rest_forbidden)").
			Respond(http.StatusNotFound, "Error", "No such event (rest-event-not-found)").
			Respond(http.StatusGone, "Error", "The event is already in the trash (event-is-in-trash)"),
	}
}

// termRoutes are the category and tag routes (404 for unknown IDs, as everywhere).
func termRoutes(app *controllers.App) []endpoint.Route {
	categories := controllers.CategoryController{App: app}
	tags := controllers.TagController{App: app}
	return []endpoint.Route{
		{Path: "/categories", Endpoints: []endpoint.Endpoint{
			termList(endpoint.Get(categories.List), "categories",
				" `parent` keeps the direct children of a category (it must exist).").
				Respond(http.StatusOK, "CategoryList", "One page of categories").
				Respond(http.StatusGone, "Error", controllers.SyncTokenExpiredDoc),
			termCreate(endpoint.Post(categories.Create), "category",
				"Creates a category. Needs the author role or above. `parent` must be an existing category (0: top level).").
				Respond(http.StatusCreated, "Category", "The category created"),
		}},
		{Path: "/categories/:id", Endpoints: []endpoint.Endpoint{
			termGet(endpoint.Get(categories.Get), "category").
				Respond(http.StatusOK, "Category", "The category"),
			termUpdate(endpoint.Update(categories.Update), "category",
				"Changes the fields sent; omitted fields stay. Needs the author role or above. A new parent must exist "+
					"and must not be the category itself or one of its descendants.").
				Respond(http.StatusOK, "Category", "The category as updated"),
			termDelete(endpoint.Delete(categories.Delete), "category",
				"Deletes the category for good: events lose it and its children move to its parent. Needs the author "+
					"role or above.").
				Respond(http.StatusOK, "Category", "The category as it was before the delete").
				Respond(http.StatusConflict, "Error", "A child would move next to a category of the same name (rest_cannot_delete)"),
		}},
		{Path: "/tags", Endpoints: []endpoint.Endpoint{
			termList(endpoint.Get(tags.List), "tags", "").
				Respond(http.StatusOK, "TagList", "One page of tags").
				Respond(http.StatusGone, "Error", controllers.SyncTokenExpiredDoc),
			termCreate(endpoint.Post(tags.Create), "tag", "Creates a tag. Needs the editor role or above.").
				Respond(http.StatusCreated, "Tag", "The tag created"),
		}},
		{Path: "/tags/:id", Endpoints: []endpoint.Endpoint{
			termGet(endpoint.Get(tags.Get), "tag").
				Respond(http.StatusOK, "Tag", "The tag"),
			termUpdate(endpoint.Update(tags.Update), "tag",
				"Changes the fields sent; omitted fields stay. Needs the editor role or above.").
				Respond(http.StatusOK, "Tag", "The tag as updated"),
			termDelete(endpoint.Delete(tags.Delete), "tag",
				"Deletes the tag for good: events lose it. Needs the editor role or above.").
				Respond(http.StatusOK, "Tag", "The tag as it was before the delete"),
		}},
	}
}

// termList, termGet, termCreate, termUpdate and termDelete add the documentation both taxonomies share.
func termList(e endpoint.Endpoint, plural, extra string) endpoint.Endpoint {
	return e.Doc("List event "+plural, "Reads are public. Ordered by name (case-insensitive) unless `orderby` says "+
		"otherwise; `hide_empty` (default true) leaves out terms no published event has; `count` is the number of "+
		"published events with the term. The body is `{rest_url, total, total_pages, "+plural+", next_rest_url?, "+
		"previous_rest_url?}` with X-TEC-Total, X-TEC-TotalPages and an RFC 8288 Link header; the navigation links "+
		"repeat the filters sent. A page past the last is an empty 200."+extra).
		Respond(http.StatusBadRequest, "Error", "A parameter is invalid or names a record that does not exist (rest_invalid_param)")
}

func termGet(e endpoint.Endpoint, kind string) endpoint.Endpoint {
	return e.Dated().Doc("Read an event "+kind, "The "+kind+" with this term ID. Reads are public. Last-Modified "+
		"is the "+kind+"'s last change: of its fields, of its count"+map[bool]string{true: ", or of the slugs of its " +
		"ancestors, which its URL shows", false: ""}[kind == "category"]+".").
		Respond(http.StatusNotFound, "Error", "No "+kind+" has this ID (rest_term_invalid)")
}

func termCreate(e endpoint.Endpoint, kind, description string) endpoint.Endpoint {
	return termWrite(e.Require("name"), kind, "Create an event "+kind, description+" A name already used under the "+
		"same parent (case-insensitive) is 400 term_exists with the existing term's ID in data.term_id; the slug, "+
		"given or made from the name, is made unique.")
}

func termUpdate(e endpoint.Endpoint, kind, description string) endpoint.Endpoint {
	return termWrite(e.Conditional(), kind, "Update an event "+kind, description+" A name already used under the same parent is "+
		"400 term_exists; a slug another term uses is 400 duplicate_term_slug naming slug.").
		Respond(http.StatusNotFound, "Error", "No "+kind+" has this ID (rest_term_invalid)")
}

func termDelete(e endpoint.Endpoint, kind, description string) endpoint.Endpoint {
	return termAuth(e, kind).Conditional().Doc("Delete an event "+kind, description).
		Respond(http.StatusNotFound, "Error", "No "+kind+" has this ID (rest_term_invalid)")
}

func termWrite(e endpoint.Endpoint, kind, summary, description string) endpoint.Endpoint {
	return termAuth(e, kind).Doc(summary, description+" Validation errors (400) come before permission errors (403).").
		Respond(http.StatusBadRequest, "Error", "A parameter is missing or invalid, or the name or slug is taken")
}

func termAuth(e endpoint.Endpoint, kind string) endpoint.Endpoint {
	return e.Authenticated().
		Respond(http.StatusUnauthorized, "Error", "No credentials, or bad ones (rest_forbidden)").
		Respond(http.StatusForbidden, "Error", "The caller's role may not manage "+kind+"s (rest_forbidden)")
}

// webhookRoutes are the webhook subscriptions, their delivery log and redelivery: administrators only.
func webhookRoutes(app *controllers.App) []endpoint.Route {
	wc := &controllers.WebhookController{App: app}
	admin := func(e endpoint.Endpoint) endpoint.Endpoint {
		return e.Authenticated().
			Respond(http.StatusUnauthorized, "Error", "No credentials, or bad ones (rest_forbidden)").
			Respond(http.StatusForbidden, "Error", "The caller is not an administrator (rest_forbidden)")
	}
	notFound := "No such webhook (rest-webhook-not-found)"
	return []endpoint.Route{
		{Path: "/webhooks", Endpoints: []endpoint.Endpoint{
			admin(endpoint.Get(wc.List)).Doc("List webhooks", "Every subscription, without its secret.").
				Respond(http.StatusOK, "Webhooks", "The subscriptions"),
			admin(endpoint.Post(wc.Create).Require("url")).Doc("Create a webhook", "Subscribes url to the change "+
				"types in events (default all). Each change is POSTed as JSON {id, type, occurred_at, data, "+
				"changed} with X-Calendar-Delivery and X-Calendar-Signature (t=<unix seconds>,v1=<hex "+
				"HMAC-SHA256 of \"<t>.<body>\" keyed with the secret>). The answer is the only one that shows "+
				"the secret (generated when not sent). A URL whose host is or resolves to a loopback, private, "+
				"link-local or otherwise non-public address is 400 naming url, unless the service allows private "+
				"addresses.").
				Respond(http.StatusCreated, "WebhookCreated", "The subscription, with its secret; Location names it").
				Respond(http.StatusBadRequest, "Error", "A missing or bad parameter (rest_invalid_param)"),
		}},
		{Path: "/webhooks/:id", Endpoints: []endpoint.Endpoint{
			admin(endpoint.Get(wc.Get)).Doc("Read a webhook", "The subscription, without its secret.").
				Respond(http.StatusOK, "Webhook", "The subscription").
				Respond(http.StatusNotFound, "Error", notFound),
			admin(endpoint.Update(wc.Update)).Doc("Update a webhook", "Changes the fields sent (a new secret "+
				"signs the next attempts); POST, PUT and PATCH are the same. The answer does not show the secret.").
				Respond(http.StatusOK, "Webhook", "The subscription as updated").
				Respond(http.StatusBadRequest, "Error", "A bad parameter (rest_invalid_param)").
				Respond(http.StatusNotFound, "Error", notFound),
			admin(endpoint.Delete(wc.Delete)).Doc("Delete a webhook", "Deletes the subscription and its "+
				"deliveries, sent or not.").
				Respond(http.StatusOK, "Webhook", "The subscription as it was").
				Respond(http.StatusNotFound, "Error", notFound),
		}},
		{Path: "/webhooks/:id/deliveries", Endpoints: []endpoint.Endpoint{
			admin(endpoint.Get(wc.Deliveries)).Doc("List a webhook's deliveries", "Newest first: type, "+
				"status (pending, sent, failed), attempts, the last answer's status and error, and the next "+
				"attempt. A delivery that gets no 2xx answer within the timeout is retried after about 1 min, "+
				"5 min, 30 min, 2 h, 6 h, then every 12 h, for 3 days, then marked failed.").
				Respond(http.StatusOK, "WebhookDeliveries", "A page of deliveries").
				Respond(http.StatusNotFound, "Error", notFound),
		}},
		{Path: "/webhooks/:id/deliveries/:delivery/redeliver", Endpoints: []endpoint.Endpoint{
			admin(endpoint.Post(wc.Redeliver)).Doc("Redeliver", "Puts the delivery back in the queue, due "+
				"now, with the same body and its attempts counted anew.").
				Respond(http.StatusAccepted, "WebhookDelivery", "The delivery, pending").
				Respond(http.StatusNotFound, "Error", "No such webhook or delivery (rest-webhook-not-found, "+
					"rest-delivery-not-found)"),
		}},
	}
}

// responseCacheBytes and keptAnswerBytes bound the memory of the anonymous response cache, 32 MB in all: answers
// keyed by data version, and single events and occurrences kept across writes (about 2 KB each compressed, so some
// 6,000). The service's soft memory limit (main.go) is set with their sum in mind: more makes the collector run so
// often that builds slow down (with 16 MB more kept, builds ran at 650–900 a second instead of 1,170–1,370).
const (
	responseCacheBytes = 20 << 20
	keptAnswerBytes    = 12 << 20
)

// New builds the HTTP handler of the whole service: probes and metrics at the server root, the API under its
// namespace, and the middleware in the order documented in package middleware.
func New(app *controllers.App) http.Handler {
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.RedirectTrailingSlash = false
	r.RedirectFixedPath = false
	r.HandleMethodNotAllowed = false
	r.ContextWithFallback = true
	// The client address (rate limits, logs) is the peer's unless a configured proxy vouches for another.
	if err := r.SetTrustedProxies(app.Config.TrustedProxies); err != nil {
		panic(err) // validated by config.Load
	}

	metrics := middleware.NewMetrics(app.Store.SQLDB())
	r.Use(middleware.Head(), middleware.RequestID(), middleware.AccessLog(app.Log), metrics.Middleware(),
		middleware.Errors(app.Log), middleware.Recovery(app.Log), middleware.Headers())
	if len(app.Config.CORSOrigins) > 0 {
		r.Use(middleware.CORS(app.Config.CORSOrigins))
	}
	r.Use(middleware.Auth(app.Store, middleware.NewAuthFailures(app.Config.AuthFailuresPerMinute)),
		middleware.RateLimit(app.Config.RateLimit))

	health := controllers.HealthController{App: app}
	docs := controllers.NewDocsUIController(app)
	for path, handler := range map[string]gin.HandlerFunc{"/healthz": health.Live, "/readyz": health.Ready,
		"/metrics": gin.WrapH(metrics.Handler()), openapi.DocsPath: docs.Page, openapi.DocsPath + "/:file": docs.Asset} {
		r.GET(path, handler)
		r.HEAD(path, handler)
	}

	api := r.Group(app.Config.APIRoot())
	responses := middleware.NewResponses(app.Store, responseCacheBytes, keptAnswerBytes, app.SyncRetention())
	metrics.WatchCache(responses)
	metrics.Register(app.Webhooks.Collectors()...)
	bodies := middleware.NewBodies(middleware.MaxBodiesAtOnce)
	for _, rr := range routerRoutes(Table(app)) {
		handlers := []gin.HandlerFunc{rr.handler()}
		if rr.method == http.MethodGet {
			handlers = append([]gin.HandlerFunc{responses.For(rr.clock(), rr.streams())}, handlers...)
		} else {
			handlers = append([]gin.HandlerFunc{responses.Writes()}, handlers...)
		}
		if len(rr.variants) > 1 {
			handlers = append([]gin.HandlerFunc{rr.pick}, handlers...)
		}
		handlers = append([]gin.HandlerFunc{bodies.Limit(middleware.BodyLimitFor(rr.method))}, handlers...)
		api.Handle(rr.method, strings.TrimSuffix(rr.pattern, "/"), handlers...)
		if rr.method == http.MethodGet {
			api.Handle(http.MethodHead, strings.TrimSuffix(rr.pattern, "/"), handlers...)
		}
	}
	noRoute := func(c *gin.Context) { _ = c.Error(models.NoRoute()) }
	r.NoRoute(noRoute)
	r.NoMethod(noRoute)
	return compat{engine: r, root: app.Config.APIRoot()}
}

// routerRoute is one route of the router: a method and a gin pattern, and the endpoints of the table it serves:
// one, or several told apart by a literal suffix of the last path parameter. Gin cannot hold /events/:id and
// /events/:id.ics side by side, so the table lists both as clients see them and one gin route serves them.
type routerRoute struct {
	method, pattern string
	// param is the parameter whose suffix picks the endpoint ("" when there is one endpoint).
	param    string
	variants []routeVariant
}

// routeVariant is an endpoint of a router route with the suffix of its parameter ("" for the bare one).
type routeVariant struct {
	suffix   string
	endpoint endpoint.Endpoint
	handler  gin.HandlerFunc
}

// RouterPattern is the gin pattern that serves a path of the route table, the parameter that carries a suffix
// and the suffix: "/events/:id.ics" → "/events/:id", "id", ".ics".
func RouterPattern(path string) (pattern, param, suffix string) {
	slash := strings.LastIndexByte(path, '/')
	last := path[slash+1:]
	if !strings.HasPrefix(last, ":") {
		return path, "", ""
	}
	param, suffix = endpoint.SplitParam(last[1:])
	return path[:slash+1] + ":" + param, param, suffix
}

// routerRoutes groups the endpoints of the table by method and gin pattern, in the table's order.
func routerRoutes(table []endpoint.Route) []*routerRoute {
	var out []*routerRoute
	byKey := map[string]*routerRoute{}
	for _, route := range table {
		pattern, param, suffix := RouterPattern(route.Path)
		for _, e := range route.Endpoints {
			for _, m := range e.Methods {
				rr := byKey[m+" "+pattern]
				if rr == nil {
					rr = &routerRoute{method: m, pattern: pattern}
					byKey[m+" "+pattern] = rr
					out = append(out, rr)
				}
				if suffix != "" {
					rr.param = param
				}
				rr.variants = append(rr.variants, routeVariant{suffix: suffix, endpoint: e, handler: e.Handler()})
			}
		}
	}
	return out
}

// variantKey is where pick records the endpoint chosen for a request.
const variantKey = "calendar.variant"

// pick chooses the endpoint whose suffix ends the parameter (the bare one otherwise), and strips the suffix from
// the parameter, so that /events/12.ics reaches the iCalendar read with id 12. A request no endpoint takes (a
// bare value where only a suffixed route exists) is 404 rest_no_route.
func (rr *routerRoute) pick(c *gin.Context) {
	value := c.Param(rr.param)
	chosen := -1
	for i, v := range rr.variants {
		switch {
		case v.suffix == "" && chosen < 0:
			chosen = i
		case v.suffix != "" && len(value) > len(v.suffix) && strings.HasSuffix(value, v.suffix):
			for j := range c.Params {
				if c.Params[j].Key == rr.param {
					c.Params[j].Value = strings.TrimSuffix(value, v.suffix)
				}
			}
			c.Set(variantKey, i)
			return
		}
	}
	if chosen < 0 {
		_ = c.Error(models.NoRoute())
		c.Abort()
		return
	}
	c.Set(variantKey, chosen)
}

// variant is the endpoint pick chose for c.
func (rr *routerRoute) variant(c *gin.Context) routeVariant {
	if len(rr.variants) == 1 {
		return rr.variants[0]
	}
	return rr.variants[c.GetInt(variantKey)]
}

// handler runs the chosen endpoint.
func (rr *routerRoute) handler() gin.HandlerFunc {
	return func(c *gin.Context) { rr.variant(c).handler(c) }
}

// clock is the clock of the chosen endpoint (see Endpoint.Clock); nil when no endpoint has one.
func (rr *routerRoute) clock() func(*gin.Context) string {
	for _, v := range rr.variants {
		if v.endpoint.Clock != nil {
			return func(c *gin.Context) string {
				if clock := rr.variant(c).endpoint.Clock; clock != nil {
					return clock(c)
				}
				return ""
			}
		}
	}
	return nil
}

// streams tells whether the chosen endpoint streams this request's answer (see Endpoint.Streams).
func (rr *routerRoute) streams() func(*gin.Context) bool {
	return func(c *gin.Context) bool {
		streams := rr.variant(c).endpoint.Streams
		return streams != nil && streams(c)
	}
}

// compat adapts requests as Canonicalize says before routing.
type compat struct {
	engine *gin.Engine
	root   string
}

func (h compat) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	Canonicalize(r, h.root)
	h.engine.ServeHTTP(w, r)
}

// Routes lists the method and path of every route the router serves (for the tests that hold the namespace index
// and /doc to it).
func (h compat) Routes() gin.RoutesInfo { return h.engine.Routes() }

// Canonicalize rewrites r the way WordPress's REST server reads requests before routing: a trailing slash is
// ignored (list links end in "/events/"), "?rest_route=/calendar/events/v1/…" on the site root addresses a route
// of the namespace (and only those: see restRoute), and X-HTTP-Method-Override lets clients behind restrictive
// proxies send PUT, PATCH and DELETE as POST. root is the API root path.
func Canonicalize(r *http.Request, root string) {
	if r.URL.Path == "/" || r.URL.Path == "" {
		if route, ok := restRoute(r.URL.RawQuery); ok {
			r.URL.Path = strings.TrimSuffix(root, "/"+config.Namespace) + route
			r.URL.RawPath = ""
		}
	}
	if p := r.URL.Path; len(p) > 1 && strings.HasSuffix(p, "/") {
		r.URL.Path = strings.TrimRight(p, "/")
		if r.URL.Path == "" {
			r.URL.Path = "/"
		}
		r.URL.RawPath = ""
	}
	if r.Method == http.MethodPost {
		switch m := strings.ToUpper(r.Header.Get("X-HTTP-Method-Override")); m {
		case http.MethodPut, http.MethodPatch, http.MethodDelete:
			r.Method = m
		}
	}
}

// namespaceRoot is the namespace's path as rest_route names it.
const namespaceRoot = "/" + config.Namespace

// restRoute returns the route a rest_route query parameter addresses, cleaned of dot segments, when it lies in
// the API's namespace. Any other value (the server root's /metrics or /healthz, a path that climbs out of the
// namespace with "..") addresses nothing, so the request stays on the site root and is 404 rest_no_route: a proxy
// rule that hides a path outside the API cannot be bypassed through the API's own parameter.
func restRoute(rawQuery string) (string, bool) {
	if !strings.Contains(rawQuery, "rest_route") {
		return "", false // most requests: no need to parse the query
	}
	values, _ := url.ParseQuery(rawQuery)
	route := values.Get("rest_route")
	if route == "" {
		return "", false
	}
	cleaned := path.Clean("/" + route)
	if cleaned != namespaceRoot && !strings.HasPrefix(cleaned, namespaceRoot+"/") {
		return "", false
	}
	return cleaned, true
}
