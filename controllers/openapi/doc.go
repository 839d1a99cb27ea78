package openapi

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"calendar/config"
	"calendar/controllers/endpoint"
)

// Security scheme names of the document.
const (
	bearerScheme = "bearerAuth"
	basicScheme  = "basicAuth"
)

// NewDocument builds the OpenAPI document of routes: every path and method, every parameter from the endpoints'
// input structs, request bodies for writes, the documented responses with their component schemas, paging
// headers on lists, and the authentication schemes; the schemas of the records are derived from their API types
// in shapes. It has no servers; Doc adds the one of each request.
func NewDocument(routes []endpoint.Route, cfg config.Config, shapes Shapes) *openapi3.T {
	doc := &openapi3.T{
		OpenAPI: "3.0.3",
		Info: &openapi3.Info{
			Title:       "Calendar REST API",
			Version:     "1.0.0",
			Description: apiDescription(cfg),
		},
		Components: &openapi3.Components{
			Schemas:         componentSchemas(shapes),
			SecuritySchemes: securitySchemes(),
			Headers:         componentHeaders(),
		},
		Paths: openapi3.NewPaths(),
	}
	seenTags := map[string]bool{}
	for _, r := range routes {
		path := endpoint.OpenAPIPath(r.Path)
		tag := docPathTag(path)
		if !seenTags[tag] {
			seenTags[tag] = true
			doc.Tags = append(doc.Tags, &openapi3.Tag{Name: tag, Description: docTagDescriptions[tag]})
		}
		item := &openapi3.PathItem{}
		for _, e := range r.Endpoints {
			bodyName := ""
			if body := docParamsSchema(e); body != nil && hasRequestBody(e.Methods[0]) {
				bodyName = exportedName(docOperationID(e.Methods[0], path)) + "Params"
				doc.Components.Schemas[bodyName] = body.NewRef()
			}
			for _, m := range e.Methods {
				item.SetOperation(m, docOperation(e, m, path, tag, bodyName))
			}
		}
		doc.Paths.Set(path, item)
	}
	return doc
}

// docPathTag groups operations by their first path segment; the root and /doc are "discovery".
func docPathTag(path string) string {
	first, _, _ := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	first, _, _ = strings.Cut(first, ".") // /events.ics is an events route
	if first == "" || first == "doc" {
		return "discovery"
	}
	return first
}

var docTagDescriptions = map[string]string{
	"discovery":  "The namespace index and this document.",
	"events":     "Events: lists with filters and paging, reads by ID or slug, create, update, trash and delete.",
	"venues":     "Venues: lists, reads by ID or slug, create, update, trash and delete.",
	"organizers": "Organizers: lists, reads by ID or slug, create, update, trash and delete.",
	"categories": "Event categories (hierarchical terms): lists, read, create, update and delete.",
	"tags":       "Event tags: lists, read, create, update and delete.",
}

// hasRequestBody tells the methods whose parameters travel in a request body.
func hasRequestBody(method string) bool {
	return method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch
}

// docOperationID names an operation from its method and path: GET /events/{id} → getEventsById,
// GET /events/by-slug/{slug} → getEventsBySlug, GET /events/{id}.ics → getEventsByIdIcs, GET /events.ics →
// getEventsIcs, GET / → getIndex.
func docOperationID(method, path string) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(method))
	segments := strings.Split(strings.Trim(path, "/"), "/")
	if path == "/" {
		return b.String() + "Index"
	}
	for i, s := range segments {
		if strings.HasPrefix(s, "{") {
			name, suffix, _ := strings.Cut(strings.TrimPrefix(s, "{"), "}")
			b.WriteString("By" + exportedName(name) + exportedName(suffix))
			continue
		}
		if i+1 < len(segments) && s == "by-"+strings.Trim(segments[i+1], "{}") {
			continue // "by-slug/{slug}" reads as BySlug once
		}
		b.WriteString(exportedName(s))
	}
	return b.String()
}

// exportedName capitalises each dash-, underscore- or dot-separated word: "by-slug" → "BySlug", "events.ics" →
// "EventsIcs".
func exportedName(s string) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

// docOperation documents one method of an endpoint.
func docOperation(e endpoint.Endpoint, method, path, tag, bodyName string) *openapi3.Operation {
	op := openapi3.NewOperation()
	op.Tags = []string{tag}
	op.Summary = e.Summary
	op.Description = e.Description
	op.OperationID = docOperationID(method, path)
	var bodyRequired []string
	for _, a := range e.Args() {
		switch {
		case a.In == "path":
			op.AddParameter(docParameter(a, openapi3.ParameterInPath))
		case bodyName != "" && hasRequestBody(method):
			if a.Required {
				bodyRequired = append(bodyRequired, a.Name)
			}
		default:
			op.AddParameter(docParameter(a, openapi3.ParameterInQuery))
		}
	}
	if bodyName != "" && hasRequestBody(method) {
		// The parameters may also travel in the query string. That is said in the body's description
		// rather than with an exploded object parameter, which Swagger UI would fill with sample values and send.
		op.RequestBody = docRequestBody(bodyName, bodyRequired)
	}
	if e.Auth {
		op.Security = &openapi3.SecurityRequirements{
			openapi3.NewSecurityRequirement().Authenticate(bearerScheme),
			openapi3.NewSecurityRequirement().Authenticate(basicScheme),
		}
	} else {
		// Anonymous callers are welcome; authenticated ones may see more (drafts, protected fields).
		op.Security = &openapi3.SecurityRequirements{
			openapi3.NewSecurityRequirement(),
			openapi3.NewSecurityRequirement().Authenticate(bearerScheme),
			openapi3.NewSecurityRequirement().Authenticate(basicScheme),
		}
	}
	for _, h := range conditionalHeaders(e, method) {
		op.AddParameter(h)
	}
	op.Responses = docResponses(e, method, len(e.Args()) > 0)
	return op
}

// docParameter documents one query or path parameter.
func docParameter(a endpoint.Arg, in string) *openapi3.Parameter {
	return &openapi3.Parameter{Name: a.Name, In: in, Description: a.Description, Required: a.Required,
		Schema: docArgSchema(a).NewRef()}
}

// docArgSchema is the JSON schema of a parameter, with its default and the longest text it takes (on the string
// itself, on a list's items, or on the string alternatives of a parameter of several shapes).
func docArgSchema(a endpoint.Arg) *openapi3.Schema {
	s := docParamSchema(a.Schema)
	if a.Default != nil {
		s.Default = a.Default
	}
	if a.MaxLength > 0 {
		setMaxLength(s, uint64(a.MaxLength))
	}
	return s
}

func setMaxLength(s *openapi3.Schema, n uint64) {
	switch {
	case s.Type.Is(openapi3.TypeString):
		s.MaxLength = &n
	case s.Type.Is(openapi3.TypeArray) && s.Items != nil && s.Items.Value != nil:
		setMaxLength(s.Items.Value, n)
	}
	for _, o := range s.OneOf {
		if o.Value != nil {
			setMaxLength(o.Value, n)
		}
	}
}

// docParamSchema converts the binder's parameter schema; enum values take the parameter's type.
func docParamSchema(ps endpoint.Schema) *openapi3.Schema {
	s := &openapi3.Schema{Format: ps.Format}
	if ps.Type != "" {
		s.Type = &openapi3.Types{ps.Type}
	}
	if ps.Items != nil {
		s.Items = docParamSchema(*ps.Items).NewRef()
	} else if ps.Type == openapi3.TypeArray {
		s.Items = openapi3.NewSchema().NewRef() // OpenAPI 3.0 requires items; a list of anything
	}
	for _, v := range ps.Enum {
		s.Enum = append(s.Enum, endpoint.TypedDefault(ps.Type, v))
	}
	for _, o := range ps.OneOf {
		s.OneOf = append(s.OneOf, docParamSchema(o).NewRef())
	}
	return s
}

// docParamsSchema is the object of an endpoint's body parameters (all but path parameters), or nil when it has none.
// Unknown members are ignored by the service, so the object is open; docRequestBody adds the required
// members.
func docParamsSchema(e endpoint.Endpoint) *openapi3.Schema {
	s := openapi3.NewObjectSchema()
	for _, a := range e.Args() {
		if a.In == "path" {
			continue
		}
		ps := docArgSchema(a)
		ps.Description = a.Description
		s.Properties[a.Name] = ps.NewRef()
	}
	if len(s.Properties) == 0 {
		return nil
	}
	return s
}

// docRequestBody accepts the parameters as JSON, as a form or as multipart form data.
func docRequestBody(name string, required []string) *openapi3.RequestBodyRef {
	schema := schemaRef(name)
	if len(required) > 0 {
		schema = (&openapi3.Schema{AllOf: openapi3.SchemaRefs{schemaRef(name), {Value: &openapi3.Schema{Required: required}}}}).NewRef()
	}
	content := openapi3.Content{}
	for _, mediaType := range []string{"application/json", "application/x-www-form-urlencoded", "multipart/form-data"} {
		content[mediaType] = openapi3.NewMediaType().WithSchemaRef(schema)
	}
	body := openapi3.NewRequestBody().WithContent(content).WithRequired(len(required) > 0)
	body.Description = "The parameters as a JSON object, a form (arrays as a[]=1&a[]=2, repeated keys or CSV; " +
		"objects as a[key]=value) or multipart form data. Any of them, required ones included, may instead be " +
		"sent in the query string; the JSON body wins over the form body, which wins over the query string."
	return &openapi3.RequestBodyRef{Value: body}
}

// docResponses documents the endpoint's answers, the generic errors every endpoint can give, 304 on reads, and
// the headers of each answer.
func docResponses(e endpoint.Endpoint, method string, hasParams bool) *openapi3.Responses {
	rs := openapi3.NewResponses()
	statuses := make([]int, 0, len(e.Responses))
	for status := range e.Responses {
		statuses = append(statuses, status)
	}
	sort.Ints(statuses)
	for _, status := range statuses {
		rs.Set(strconv.Itoa(status), &openapi3.ResponseRef{Value: docResponse(e, method, status, e.Responses[status])})
	}
	if method == http.MethodGet {
		notModified := openapi3.NewResponse().WithDescription("Not modified: If-None-Match names the current " +
			"ETag (weak comparison)" + map[bool]string{true: ", or If-Modified-Since is not before Last-Modified",
			false: ""}[e.LastModified] + ". No body.")
		notModified.Headers = openapi3.Headers{"ETag": componentHeader("ETag")}
		rs.Set(strconv.Itoa(http.StatusNotModified), &openapi3.ResponseRef{Value: notModified})
	}
	generic := func(status int, description string) {
		if rs.Value(strconv.Itoa(status)) == nil {
			rs.Set(strconv.Itoa(status), &openapi3.ResponseRef{Value: openapi3.NewResponse().
				WithDescription(description).WithJSONSchemaRef(schemaRef("Error"))})
		}
	}
	if hasParams {
		generic(http.StatusBadRequest, "A required parameter is missing (rest_missing_callback_param, data.params "+
			"lists them) or a parameter is invalid (rest_invalid_param, data.params maps each to a reason).")
	}
	if e.Auth {
		generic(http.StatusUnauthorized, "No credentials (rest_forbidden), or bad or revoked ones "+
			"(rest_invalid_credentials).")
		generic(http.StatusForbidden, "The user lacks the capability (rest_forbidden).")
	}
	rs.Set("default", &openapi3.ResponseRef{Value: openapi3.NewResponse().WithDescription(
		"Any other error, in the error body: 404 rest_no_route (unknown path, method or malformed path ID), " +
			"413 rest_request_too_large (body over 1 MiB on POST, PUT and PATCH, over 64 KiB on other methods), " +
			"400 rest_invalid_json, 429 when rate-limited, 503 rest_database_unavailable or rest_busy (too many " +
			"bodies being sent at once; both with Retry-After), 500 rest_internal_error.").
		WithJSONSchemaRef(schemaRef("Error"))})
	return rs
}

// docResponse documents one answer: its body in each media type, and its headers.
func docResponse(e endpoint.Endpoint, method string, status int, r endpoint.Response) *openapi3.Response {
	description := r.Description
	if description == "" {
		description = http.StatusText(status)
	}
	resp := openapi3.NewResponse().WithDescription(description)
	content := openapi3.Content{}
	if r.Schema != "" {
		content["application/json"] = openapi3.NewMediaType().WithSchemaRef(schemaRef(r.Schema))
	}
	for mediaType, schema := range r.Media {
		content[mediaType] = openapi3.NewMediaType().WithSchemaRef(schemaRef(schema))
	}
	if len(content) > 0 {
		resp.Content = content
	}
	headers := openapi3.Headers{}
	if strings.HasSuffix(r.Schema, "List") {
		for _, h := range []string{"X-TEC-Total", "X-TEC-TotalPages", "Link", "X-Sync-Token"} {
			headers[h] = componentHeader(h)
			if len(r.Media) > 0 {
				// A negotiated answer in another media type (the iCalendar feed of GET /events) is not paged.
				headers[h] = &openapi3.HeaderRef{Value: &openapi3.Header{Parameter: openapi3.Parameter{
					Description: "JSON answers only: " + pagingHeaders()[h].Value.Description,
					Schema:      pagingHeaders()[h].Value.Schema}}}
			}
		}
	}
	if status == http.StatusCreated {
		headers["Location"] = &openapi3.HeaderRef{Value: &openapi3.Header{Parameter: openapi3.Parameter{
			Description: "The new record's URL in this API.", Required: true,
			Schema: stringSchema().WithFormat("uri").NewRef()}}}
	}
	if method == http.MethodGet && status == http.StatusOK {
		headers["ETag"] = componentHeader("ETag")
		if e.LastModified {
			headers["Last-Modified"] = componentHeader("Last-Modified")
		}
	}
	if len(headers) > 0 {
		resp.Headers = headers
	}
	return resp
}

// componentHeader points at a header of the document's components.
func componentHeader(name string) *openapi3.HeaderRef {
	return &openapi3.HeaderRef{Ref: "#/components/headers/" + name}
}

// conditionalHeaders are the request headers of conditional requests an operation honours (RFC 9110 §13).
func conditionalHeaders(e endpoint.Endpoint, method string) []*openapi3.Parameter {
	header := func(name, description string) *openapi3.Parameter {
		return &openapi3.Parameter{Name: name, In: openapi3.ParameterInHeader, Description: description,
			Schema: stringSchema().NewRef()}
	}
	var hs []*openapi3.Parameter
	if method == http.MethodGet {
		hs = append(hs, header("If-None-Match", "ETags of earlier answers (comma-separated, or *): 304 without a "+
			"body when one matches the current answer's ETag (weak comparison)."))
	}
	if method == http.MethodGet && e.LastModified {
		hs = append(hs, header("If-Modified-Since", "An HTTP date: 304 when Last-Modified is not after it. "+
			"Ignored when If-None-Match is sent."))
	}
	if e.IfMatch {
		hs = append(hs, header("If-Match", "The ETag of the record as the caller last read it with GET on this "+
			"item route (or *, any current record): the write happens only while it is still the current one "+
			"(strong comparison), else 412 rest_precondition_failed and nothing changes. The check and the write "+
			"are one transaction with the record locked, so of concurrent writes sent with the same ETag exactly "+
			"one succeeds."))
		hs = append(hs, header("If-Unmodified-Since", "An HTTP date, honoured when If-Match is not sent: the "+
			"write happens only if the record has not changed since (its Last-Modified is not after the date), "+
			"else 412 rest_precondition_failed and nothing changes; checked in the write's transaction, like "+
			"If-Match. A value that is not an HTTP date is ignored."))
	}
	return hs
}

func securitySchemes() openapi3.SecuritySchemes {
	return openapi3.SecuritySchemes{
		bearerScheme: {Value: &openapi3.SecurityScheme{Type: "http", Scheme: "bearer",
			Description: "A token made with `calendar users create` or `calendar users token`: " +
				"`Authorization: Bearer TOKEN`."}},
		basicScheme: {Value: &openapi3.SecurityScheme{Type: "http", Scheme: "basic",
			Description: "The login and a token, as WordPress application passwords are sent: " +
				"`Authorization: Basic base64(LOGIN:TOKEN)`."}},
	}
}

// componentHeaders are the headers answers share: paging, ETag and Last-Modified.
func componentHeaders() openapi3.Headers {
	headers := pagingHeaders()
	for name, description := range map[string]string{
		"ETag": "The answer's entity tag, for If-None-Match on a later GET (and If-Match on a write of a record). " +
			"Strong (a hash of the body) on every answer but iCalendar feeds, whose tag is weak: it is computed " +
			"before the feed is built, from the data version, the query, the caller and the clock period.",
		"Last-Modified": "The record's modification date (for an event the latest of its own and its venues' and " +
			"organizers'; for a category or tag the last change of its fields or its count), for If-Modified-Since " +
			"and If-Unmodified-Since.",
	} {
		headers[name] = &openapi3.HeaderRef{Value: &openapi3.Header{Parameter: openapi3.Parameter{
			Description: description, Required: true, Schema: stringSchema().NewRef()}}}
	}
	return headers
}

// pagingHeaders are the headers of every list answer.
func pagingHeaders() openapi3.Headers {
	header := func(description string, required bool, s *openapi3.Schema) *openapi3.HeaderRef {
		return &openapi3.HeaderRef{Value: &openapi3.Header{Parameter: openapi3.Parameter{
			Description: description, Required: required, Schema: s.NewRef()}}}
	}
	return openapi3.Headers{
		"X-TEC-Total":      header("How many records match, over all pages.", true, integerSchema().WithMin(0)),
		"X-TEC-TotalPages": header("How many pages there are (0 when nothing matches).", true, integerSchema().WithMin(0)),
		"Link": header(`RFC 8288 links to the other pages: rel="next", "prev", "first" and "last", each when `+
			`there is such a page.`, false, stringSchema()),
		"X-Sync-Token": header("An opaque position in the change history, taken no later than the data the answer "+
			"shows: send it back as sync_token to learn what changed since.", true, stringSchema()),
	}
}

// apiDescription is the document's introduction: the decisions that apply across routes, with this
// deployment's settings.
func apiDescription(cfg config.Config) string {
	geo := "switched off on this service: any `geoloc*` parameter is `400 rest_invalid_param` (\"geolocation is " +
		"not enabled\") and venues do not accept `geo_lat`/`geo_lng`"
	if cfg.Geolocation {
		geo = fmt.Sprintf("switched on: venues carry `geo_lat`/`geo_lng`; `geoloc=true` keeps events whose venue "+
			"has coordinates, and `geoloc_lat` with `geoloc_lng` (with or without `geoloc=true`, which The Events Calendar "+
			"requires) keeps events with a venue within `geoloc_radius` (default %g) `geoloc_unit` (`miles` or `km`, "+
			"default `%s`) of that point, by great-circle distance; `geoloc=false` switches the filter off. Only one "+
			"of lat/lng, values out of range, or a radius or unit without a centre, is `400`", cfg.GeoRadius, cfg.GeoUnit)
	}
	return strings.Join([]string{
		"An event calendar: events, venues, organizers, event categories and event tags. A drop-in for clients " +
			"of The Events Calendar's REST API v1 (`tribe/events/v1`): the same routes, parameters, shapes and error " +
			"codes under the namespace `" + config.Namespace + "`, with the differences below.",

		"## Requests\n\n" +
			"- Parameters come from a JSON body, a form body (`application/x-www-form-urlencoded` or " +
			"`multipart/form-data`) or the query string, in that priority. An empty body under a JSON content type " +
			"counts as no parameters.\n" +
			"- Arrays may be JSON arrays, `a[]=1&a[]=2`, repeated `a=1&a=2`, or CSV `1,2`.\n" +
			"- Booleans accept `true`, `false`, `1`, `0`, `\"yes\"`, `\"no\"`, `\"on\"`, `\"off\"` (and their " +
			"string forms) and are returned as JSON booleans.\n" +
			"- Unknown fields are ignored, and so are generated fields (`id`, `url`, `rest_url`, `utc_*`, " +
			"`*_details`, `timezone_abbr`, `cost_details`, `global_id`).\n" +
			"- Bodies over 1 MiB (POST, PUT, PATCH) or 64 KiB (other methods) get `413`; a route that needs " +
			"credentials answers an anonymous request `401` before reading its body; at most 16 bodies are read " +
			"at once (a request waits up to 10 s for its turn, then `503 rest_busy` with `Retry-After`). A body " +
			"that is not valid JSON under a JSON content type gets `400 rest_invalid_json`.\n" +
			"- Every text parameter has a maximum length, its `maxLength` here (in characters; for lists, of each " +
			"item): a longer value is `400 rest_invalid_param` naming it.\n" +
			"- A trailing slash is ignored, `?rest_route=/" + config.Namespace + "/…` on the site root reaches a " +
			"route of this namespace (and nothing outside it), and `X-HTTP-Method-Override` turns a POST into PUT, " +
			"PATCH or DELETE.\n" +
			"- Every GET route also answers HEAD: the same status and headers, no body.",

		"## Dates\n\n" +
			"- Accepted: `YYYY-MM-DD HH:MM:SS`, `YYYY-MM-DD HH:MM`, `YYYY-MM-DDTHH:MM[:SS]`, RFC 3339 with offset, " +
			"`YYYY-MM-DD`, a Unix timestamp (a JSON number or a string of digits, a UTC instant), and the relative " +
			"forms `now`, `today`, `tomorrow`, `yesterday`, `tomorrow 9am`, `next wednesday 4pm`, `+5 days`, " +
			"`+2 weeks 11am`, `-1 month`, `2018-01-01 4pm`. Anything else is `400 rest_invalid_param` naming the " +
			"parameter.\n" +
			"- A date without an offset is read in the event's `timezone` when the same request gives one, else in " +
			"the site time zone (`" + cfg.Timezone.String() + "` here). `timezone` accepts IANA names, `UTC`, " +
			"`UTC+2`, `UTC-5:30`.\n" +
			"- Output: `Y-m-d H:i:s`; `start_date`/`end_date` on the event's wall clock, `utc_*` in UTC, " +
			"`*_details` as zero-padded strings. `all_day` events run 00:00:00–23:59:59.\n" +
			"- An end before the start is `400 rest_invalid_param` naming `end_date`.\n" +
			"- List date filters compare instants; bounds without an offset are read in the site time zone. The " +
			"default window of `GET /events` is 00:00 today to 23:59:59 of the same day two years ahead; any " +
			"`starts_*`/`ends_*` bound drops it, and with `include` no date bound applies at all.",

		"## Lists\n\n" +
			fmt.Sprintf("- `per_page` defaults to 10; values above %d are clamped silently.\n", cfg.MaxPerPage) +
			"- Every list answer has `X-TEC-Total`, `X-TEC-TotalPages` and an RFC 8288 `Link` header " +
			"(`next`, `prev`, `first`, `last`); `Access-Control-Expose-Headers` includes them.\n" +
			"- A page past the last is `404 *-archive-page-not-found` for events, venues and organizers, and an " +
			"empty `200` for categories and tags.",

		"## Incremental sync\n\n" +
			"- Every list answer of events, venues, organizers, categories and tags carries `X-Sync-Token`, an " +
			"opaque, signed position in the service's change history, taken no later than the data the answer " +
			"shows.\n" +
			"- `GET /{list}?sync_token=T` with any of the list's other filters answers what changed since `T`, in " +
			"the list's envelope: in the list key the records that changed and pass the filters now (redacted as " +
			"in any list), in `deleted` the IDs of those that changed and do not (deleted, trashed, no longer " +
			"visible to the caller, or no longer matching). A caller never learns more of a record it may not read " +
			"than its ID in `deleted`. Records are ordered by ID; `total` counts the changed records. The default " +
			"date window of `GET /events` does not apply; date filters that are sent do.\n" +
			"- Page through one sync by its `next` links: they carry a token that fixes what the sync covers, so " +
			"writes made meanwhile neither shift nor hide records between pages. Keep the `X-Sync-Token` of the " +
			"last page for the next sync; changes made during the sync come with it. A record may come again in " +
			"a later sync although it did not change since the client saw it (a write that was in flight when the " +
			"token was taken): apply it again, the answer shows the current state.\n" +
			"- Every write of a record or of an event's links enters the history in the write's own transaction, " +
			"so a change is never missed, and one that rolls back is never listed. A link or count change " +
			"(categories and tags count events) lists the record again. Whether a venue or organizer still " +
			"has events (`has_events`, `only_with_upcoming`) depends on its events' dates and statuses, which do " +
			"not list it again: sync such filters from a plain list.\n" +
			"- Changes are kept for `CALENDAR_SYNC_RETENTION` (" + cfg.SyncRetention.String() + " here). A token " +
			"older than that, or one this service did not hand out (tokens are signed with a key kept in the " +
			"database, which every instance shares), is `410 sync_token_expired`: list again without it.",

		"## Webhooks\n\n" +
			"- Administrators subscribe URLs to change types (`event.created`, `event.updated`, `event.deleted`, and " +
			"the same for `venue`, `organizer`, `category`, `tag`; `*` for all) at `/webhooks`; everyone else gets " +
			"401 or 403. The secret is shown only in the answer to the create.\n" +
			"- Each change is POSTed as JSON `{id, type, occurred_at, data, changed}` with `X-Calendar-Delivery` and " +
			"`X-Calendar-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of \"<t>.<body>\" keyed with the " +
			"secret>`. `data` is the record as an administrator reads it in lists (after a permanent delete: as such " +
			"a read showed it before the delete, in the same shape); moving to the trash is `*.deleted` with status `trash`. Changes of one " +
			"record read together make one delivery, so a recurring series' edit sends one delivery per occurrence " +
			"it touched; link and count changes are not delivered.\n" +
			"- A 2xx answer within " + cfg.Webhooks.Timeout.String() + " is a success; anything else (timeouts, " +
			"closed connections and redirects included, which are never followed) is retried after about 1 min, " +
			"5 min, 30 min, 2 h, 6 h, then every 12 h, for 3 days, then marked failed. One record's deliveries " +
			"are sent in order. Deliveries wait in the database and survive restarts; instances sharing a " +
			"PostgreSQL database claim them with row locks, so each is sent by one of them. The delivery log " +
			"(`/webhooks/{id}/deliveries`) keeps deliveries sent or failed for `CALENDAR_SYNC_RETENTION` (" +
			cfg.SyncRetention.String() + " here), as long as the changes; one waiting to be sent stays.\n" +
			"- A URL whose host is or resolves to a loopback, private, link-local or otherwise non-public address " +
			"is `400` naming `url`" + map[bool]string{true: " (allowed on this deployment: " +
			"CALENDAR_WEBHOOK_ALLOW_PRIVATE is on)", false: ""}[cfg.Webhooks.AllowPrivate] + "; the address " +
			"connected to is checked again at every attempt.",

		"## Authentication and permissions\n\n" +
			"- Reads are public; writes need `Authorization: Bearer TOKEN` or `Authorization: Basic " +
			"base64(LOGIN:TOKEN)`. Tokens are made with the service's command line (`users create`, `users " +
			"token`) and revoked with `users revoke`.\n" +
			"- An anonymous write is `401 rest_forbidden` before its parameters are read; a bad or revoked " +
			"credential is `401 rest_invalid_credentials`; an authenticated user without the capability gets " +
			"`403 rest_forbidden`.\n" +
			"- Roles as in WordPress: contributors create and edit only their own unpublished records (a " +
			"`publish` they send becomes `pending`); authors publish their own; editors and administrators do " +
			"everything. Categories need an author or above, tags an editor or above.\n" +
			"- Visitors see published records only; users who can edit see drafts, pending, future and private " +
			"records too. A trashed event is readable by its editors (`status: \"trash\"`) and " +
			"`403 event-no-longer-available` for everyone else.\n" +
			"- Password-protected events: `password` on create sets it, on update an editor sets it (`\"\"` " +
			"removes it), on read and delete it is the access parameter. Lists and embeds redact protected " +
			"records (names stay visible). Passwords are never returned.",

		"## Writes\n\n" +
			"- Create answers `201` with the record and a `Location` header; update answers `200` with the record.\n" +
			"- Updates by POST, PUT or PATCH are partial: an omitted field is unchanged, a list given replaces the " +
			"whole list (`categories: []` removes all), `venue: 0`, `\"\"`, `[]` or `null` removes the venue, and an " +
			"update without `status` keeps the status (a status sent is scaled back to what the user may set).\n" +
			"- Venues and organizers on events: IDs, CSV, `{\"id\": N}`, inline objects (validated like `POST " +
			"/venues` and created in the same transaction) or a mix; organizer order is kept. Creating a venue " +
			"or organizer identical to an existing one (same name, ignoring case, and the same value for every " +
			"field sent) returns the existing one with `200`.\n" +
			"- Categories and tags on events: IDs, names or slugs; an unknown ID is `400`. An unknown name is " +
			"created only for a caller who may create such terms (as `POST /categories` or `/tags` asks); anyone " +
			"else gets `403 rest_forbidden` naming `categories` or `tags` in `data.params`, and nothing is written. " +
			"Existing terms may be linked by anyone who may write the event.\n" +
			"- Slugs are generated from the title or name when absent and made unique with `-2`, `-3`…; a " +
			"duplicate term name under the same parent is `400 term_exists`, a slug clash on update `400`.\n" +
			"- `image` is an http(s) URL or the ID of an image the service knows; `cost` is free text or an array, " +
			"formatted with ` – ` for ranges and `Free` for 0, with the site currency when no symbol is given.\n" +
			"- Every write is one transaction: a request that fails leaves nothing half-written. A record the " +
			"write names that another request deletes while it runs answers as if it had never existed: `400 " +
			"rest_invalid_param` naming the parameter.",

		"## Trash and delete\n\n" +
			"- `DELETE` on an event, venue or organizer moves it to the trash (`200`, the record with `status: " +
			"\"trash\"`); a second `DELETE` is `410 *-is-in-trash`; `force=true` deletes it permanently (`200`, the " +
			"record as it was). An update that sets a status restores a trashed record. Trashing or deleting a venue " +
			"or organizer unlinks it from its events.\n" +
			"- `DELETE` on a category or tag is permanent (`200`, the term as it was); children move to the deleted " +
			"term's parent.",

		"## Errors\n\n" +
			"Every error has the body `{\"code\", \"message\", \"data\": {\"status\", …}}` with The Events Calendar's codes: " +
			"`rest_no_route` (`404`, also for a path ID that is not digits or a method the route lacks), " +
			"`rest_missing_callback_param` (`400`, `data.params` lists the missing parameters), `rest_invalid_param` " +
			"(`400`, `data.params` maps each bad parameter to a reason), `rest_forbidden` (`401`/`403`), " +
			"`rest-event-not-found`, `rest-venue-not-found`, `rest-organizer-not-found` and `rest_term_invalid` " +
			"(`404` for an unknown ID or slug), `event-not-accessible`, `event-password-protected`, " +
			"`event-is-in-trash`, `*-archive-page-not-found`, `term_exists`. No request gets a `500` for bad input; " +
			"a database outage is `503` with `Retry-After`.",

		"## Caching, conditional requests and feeds\n\n" +
			"- Every GET answer has an `ETag` (strong, a hash of the body; weak for iCalendar feeds) and answers " +
			"`If-None-Match` with `304`. Single events, venues, organizers, categories and tags also carry " +
			"`Last-Modified` (for an event the latest of its own and its venues' and organizers' modification " +
			"dates; for a term the last change of its fields or its count) and answer `If-Modified-Since`. " +
			"`Cache-Control` is `public, no-cache` for anonymous callers and `private, no-cache` otherwise, with " +
			"`Vary: Authorization, Accept, Origin`.\n" +
			"- The service caches anonymous answers in memory and never serves a stale one: a read that starts " +
			"after an acknowledged write reflects it, on every instance sharing the database. Lists are built " +
			"again after any write; a single event or an occurrence stays cached until a write changes it (for an " +
			"occurrence, its series' rule included), its venues, organizers, categories or tags (a term's count " +
			"included). A series record is served from the cache only until its first next occurrence starts.\n" +
			"- Updates and deletes of one event, venue, organizer, category or tag honour `If-Match`: the `ETag` " +
			"of `GET` on the item for the same caller, compared strongly (`*` matches any record) inside the " +
			"write's transaction with the record locked; a stale one is `412 rest_precondition_failed` and " +
			"changes nothing, so of concurrent writes sent with one tag exactly one succeeds. Without `If-Match`, " +
			"`If-Unmodified-Since` is checked the same way: a date before the record's `Last-Modified` is `412`. " +
			"`404`, `401`/`403` and `410` come first.\n" +
			fmt.Sprintf("- `GET /events.ics` (and `GET /events` with `Accept: text/calendar`) is an iCalendar "+
				"feed of the events `GET /events` lists for the same query, unpaged, up to %d events "+
				"(`X-WR-CALDESC` says when a feed stops there), streamed in batches; its weak `ETag` is computed "+
				"before any event is read, so polling with `If-None-Match` costs one data-version read. `GET "+
				"/events/{id}.ics` is one event.", cfg.ICalMaxEvents),

		"## Additions\n\n" +
			"- Events carry a writable `ticketed` flag (list filter `ticketed`) and a writable `parent` event " +
			"(list filter `post_parent`).\n" +
			"- `has_events` on venue and organizer lists keeps records linked to at least one event that is not a " +
			"draft, pending or trashed.\n" +
			"- Geolocation is " + geo + ".",
	}, "\n\n")
}
