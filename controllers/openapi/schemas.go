package openapi

import (
	"github.com/getkin/kin-openapi/openapi3"
)

// The component schemas of the OpenAPI document: the records, lists, errors and index the API answers with.
// Endpoints name them in Respond; the test suite validates every response against them, so they are strict:
// records and envelopes forbid undocumented members (additionalProperties: false), and every member always emitted
// is required. Where empty members are omitted (venues and organizers) almost nothing is required, and where
// password-protected records are redacted booleans are nullable and linked records may be empty arrays.

// Patterns shared by several schemas.
const (
	schemaDatePattern     = `^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$`
	schemaAuthorPattern   = `^\d+$`
	schemaGlobalIDPattern = `\?id=\d+$`
)

// describe sets a schema's description.
func describe(s *openapi3.Schema, description string) *openapi3.Schema {
	s.Description = description
	return s
}

// icalendarPattern is the frame of an iCalendar object: CRLF-terminated lines between BEGIN and END:VCALENDAR.
const icalendarPattern = `^BEGIN:VCALENDAR\r\n(?:[^\r\n]*\r\n)*END:VCALENDAR\r\n$`

// schemaStatuses are the statuses a record can have.
var schemaStatuses = []any{"publish", "future", "draft", "pending", "private", "trash"}

// schemaRef points at a component schema.
func schemaRef(name string) *openapi3.SchemaRef {
	return openapi3.NewSchemaRef("#/components/schemas/"+name, nil)
}

// schemaMember is one member of an object schema.
type schemaMember struct {
	name   string
	schema *openapi3.SchemaRef
}

// closedObject builds a closed object schema: the members in props, those in required mandatory, nothing else.
func closedObject(description string, required []string, props ...schemaMember) *openapi3.Schema {
	s := openapi3.NewObjectSchema().WithoutAdditionalProperties()
	s.Description = description
	for _, m := range props {
		s.Properties[m.name] = m.schema
	}
	if len(required) > 0 {
		s.Required = required
	}
	return s
}

// member names a member with an inline schema and a description.
func member(name, description string, s *openapi3.Schema) schemaMember {
	if description != "" {
		s.Description = description
	}
	return schemaMember{name, s.NewRef()}
}

// memberRef names a member that is a component schema.
func memberRef(name, component string) schemaMember { return schemaMember{name, schemaRef(component)} }

func stringSchema() *openapi3.Schema  { return openapi3.NewStringSchema() }
func integerSchema() *openapi3.Schema { return openapi3.NewIntegerSchema() }
func numberSchema() *openapi3.Schema  { return openapi3.NewFloat64Schema() }
func booleanSchema() *openapi3.Schema {
	return openapi3.NewBoolSchema()
}

// nullableBooleanSchema is a flag that a password-protected record shows as null.
func nullableBooleanSchema() *openapi3.Schema { return openapi3.NewBoolSchema().WithNullable() }

// dateSchema is a "Y-m-d H:i:s" string.
func dateSchema() *openapi3.Schema { return stringSchema().WithPattern(schemaDatePattern) }

// emptyArraySchema is the PHP empty array The Events Calendar emits where a value is absent or redacted.
func emptyArraySchema() *openapi3.Schema {
	return openapi3.NewArraySchema().WithItems(openapi3.NewSchema()).WithMaxItems(0)
}

// openObject lets an object schema carry members beyond those it lists.
func openObject(s *openapi3.Schema) *openapi3.Schema {
	s.AdditionalProperties = openapi3.AdditionalProperties{}
	return s
}

// mapSchema is an object whose members, whatever their names, all have the schema values.
func mapSchema(values *openapi3.SchemaRef) *openapi3.Schema {
	s := openapi3.NewObjectSchema()
	s.AdditionalProperties = openapi3.AdditionalProperties{Schema: values}
	return s
}

func arraySchema(items *openapi3.SchemaRef) *openapi3.Schema {
	s := openapi3.NewArraySchema()
	s.Items = items
	return s
}

func oneOfSchema(description string, refs ...*openapi3.SchemaRef) *openapi3.Schema {
	s := &openapi3.Schema{OneOf: refs, Description: description}
	return s
}

// componentSchemas returns every named schema of the document.
func componentSchemas() openapi3.Schemas {
	schemas := openapi3.Schemas{}
	add := func(name string, s *openapi3.Schema) { schemas[name] = s.NewRef() }

	add("ICalendar", describe(stringSchema().WithPattern(icalendarPattern), "An iCalendar (RFC 5545) "+
		"object, text/calendar; charset=utf-8: CRLF line ends, lines folded at 75 octets. VERSION:2.0, PRODID, "+
		"CALSCALE:GREGORIAN and, for feeds, X-WR-CALNAME, X-WR-TIMEZONE (the site time zone), REFRESH-INTERVAL and "+
		"X-PUBLISHED-TTL (PT1H) and, when the feed stopped at CALENDAR_ICAL_MAX_EVENTS, X-WR-CALDESC saying so; "+
		"then one VTIMEZONE per time zone the events use (explicit STANDARD/DAYLIGHT observances for the years "+
		"they cover, from the zone database), then one VEVENT per event."))
	add("DateDetails", closedObject("A date split into its parts, each a zero-padded string.",
		[]string{"year", "month", "day", "hour", "minutes", "seconds"},
		member("year", "", stringSchema().WithPattern(`^\d{4}$`)),
		member("month", "", stringSchema().WithPattern(`^\d{2}$`)),
		member("day", "", stringSchema().WithPattern(`^\d{2}$`)),
		member("hour", "", stringSchema().WithPattern(`^\d{2}$`)),
		member("minutes", "", stringSchema().WithPattern(`^\d{2}$`)),
		member("seconds", "", stringSchema().WithPattern(`^\d{2}$`)),
	))
	add("CostDetails", closedObject("The parsed cost: the symbol and its position as used, and the numeric values as "+
		"strings sorted numerically ([] when there is no cost). A password-protected event shows empty strings "+
		"and [].",
		[]string{"currency_symbol", "currency_code", "currency_position", "values"},
		member("currency_symbol", "", stringSchema()),
		member("currency_code", "", stringSchema()),
		member("currency_position", "", stringSchema().WithEnum("prefix", "postfix", "")),
		member("values", "", arraySchema(stringSchema().WithPattern(`^-?\d+(\.\d+)?$`).NewRef())),
	))
	add("ImageSize", closedObject("One resized copy of an image.", []string{"url"},
		member("width", "", integerSchema()),
		member("height", "", integerSchema()),
		member("mime-type", "", stringSchema()),
		member("filesize", "", integerSchema()),
		member("url", "", stringSchema().WithFormat("uri")),
	))
	add("ImageObject", closedObject("A featured image. Images known only by URL carry no sizes.",
		[]string{"url", "id"},
		member("url", "The full-size URL.", stringSchema().WithFormat("uri")),
		member("id", "The image ID, usable as the image parameter of writes.", integerSchema()),
		member("extension", "", stringSchema()),
		member("width", "", integerSchema()),
		member("height", "", integerSchema()),
		member("filesize", "", integerSchema()),
		member("original_image", "", stringSchema()),
		member("sizes", "Resized copies by size name.", mapSchema(schemaRef("ImageSize"))),
	))
	add("Image", oneOfSchema("The featured image, or false when there is none (or the record is password-protected).",
		schemaRef("ImageObject"),
		openapi3.NewBoolSchema().WithEnum(false).NewRef(),
	))
	add("TermURLs", closedObject("API links of a term.", []string{"self", "collection"},
		member("self", "The term's own URL.", stringSchema().WithFormat("uri")),
		member("collection", "The list the term belongs to.", stringSchema().WithFormat("uri")),
		member("up", "The parent category (only for child categories).", stringSchema().WithFormat("uri")),
	))
	add("EmbeddedTerm", closedObject("A category or tag as embedded in an event: the term object, "+
		"which differs from the standalone term (no url, no meta; term_group, term_taxonomy_id and filter).",
		[]string{"name", "slug", "term_group", "term_taxonomy_id", "taxonomy", "description", "parent", "count",
			"filter", "id", "urls"},
		member("name", "", stringSchema()),
		member("slug", "", stringSchema()),
		member("term_group", "", integerSchema()),
		member("term_taxonomy_id", "", integerSchema()),
		member("taxonomy", "", stringSchema().WithEnum("tribe_events_cat", "post_tag")),
		member("description", "", stringSchema()),
		member("parent", "The parent category's ID; 0 for top-level categories and for tags.", integerSchema().WithMin(0)),
		member("count", "How many published events carry the term.", integerSchema().WithMin(0)),
		member("filter", "", stringSchema().WithEnum("raw")),
		member("id", "", integerSchema()),
		memberRef("urls", "TermURLs"),
	))
	add("JSONLD", &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeObject}, Required: []string{"@type"},
		Description: "schema.org data of the record, on single reads only.",
		Properties: openapi3.Schemas{
			"@context": stringSchema().NewRef(),
			"@type":    stringSchema().NewRef(),
		}})
	add("Venue", venueSchema())
	add("Organizer", organizerSchema())
	add("Event", eventSchema())
	add("Category", termSchema("An event category.",
		"tribe_events_cat", true))
	add("Tag", termSchema("An event tag; tags have no parent.",
		"post_tag", false))

	add("EventList", listSchema("events", "Event", true))
	add("VenueList", listSchema("venues", "Venue", true))
	add("OrganizerList", listSchema("organizers", "Organizer", true))
	add("CategoryList", listSchema("categories", "Category", false))
	add("TagList", listSchema("tags", "Tag", false))

	add("Webhook", webhookSchema(false))
	add("WebhookCreated", webhookSchema(true))
	add("Webhooks", closedObject("Every webhook subscription, by ID.", []string{"webhooks"},
		member("webhooks", "", arraySchema(schemaRef("Webhook")))))
	add("WebhookDelivery", webhookDeliverySchema())
	add("WebhookDeliveries", closedObject("A page of a subscription's deliveries, newest first. The same totals "+
		"are in the X-TEC-Total and X-TEC-TotalPages headers, the links in the Link header.",
		[]string{"deliveries", "total", "total_pages"},
		member("deliveries", "", arraySchema(schemaRef("WebhookDelivery"))),
		member("total", "How many deliveries the subscription has.", integerSchema().WithMin(0)),
		member("total_pages", "How many pages there are; 0 when there are none.", integerSchema().WithMin(0))))

	add("Error", errorSchema())
	add("NamespaceIndex", namespaceIndexSchema(schemas))
	// The document follows the OpenAPI specification; this checks the members every OpenAPI document has.
	add("OpenAPIDocument", openObject(closedObject("This document (OpenAPI 3.0).",
		[]string{"openapi", "info", "servers", "components", "paths"},
		member("openapi", "", stringSchema().WithPattern(`^3\.0\.\d+$`)),
		member("info", "", openObject(closedObject("", []string{"version", "title", "description"},
			member("version", "", stringSchema()), member("title", "", stringSchema()), member("description", "", stringSchema())))),
		member("servers", "The first is the API root, with a trailing slash.",
			arraySchema(openObject(closedObject("", []string{"url"}, member("url", "", stringSchema().WithPattern(`/$`)))).NewRef()).
				WithMinItems(1)),
		member("components", "", openapi3.NewObjectSchema()),
		member("paths", "", openapi3.NewObjectSchema()),
	)))
	return schemas
}

// recordHeaderMembers is what events, venues and organizers share: identity, authorship, status and dates.
func recordHeaderMembers(kind string) []schemaMember {
	return []schemaMember{
		member("id", "The "+kind+" ID.", integerSchema().WithMin(1)),
		member("author", "The author's user ID, as a string.", stringSchema().WithPattern(schemaAuthorPattern)),
		member("status", "The post status.", stringSchema().WithEnum(schemaStatuses...)),
		member("date", "Publication date, site time zone.", dateSchema()),
		member("date_utc", "Publication date, UTC.", dateSchema()),
		member("modified", "Last modification, site time zone.", dateSchema()),
		member("modified_utc", "Last modification, UTC.", dateSchema()),
		member("url", "The public page of the "+kind+".", stringSchema().WithFormat("uri")),
	}
}

func globalIDMembers() []schemaMember {
	return []schemaMember{
		member("global_id", `"<host><path>?id=<id>": the record's ID across sites.`, stringSchema().WithPattern(schemaGlobalIDPattern)),
		member("global_id_lineage", "The global IDs the record was imported through, its own first.",
			arraySchema(stringSchema().WithPattern(schemaGlobalIDPattern).NewRef()).WithMinItems(1)),
	}
}

func eventSchema() *openapi3.Schema {
	props := append(recordHeaderMembers("event"), globalIDMembers()...)
	props = append(props,
		member("rest_url", "The event's URL in this API.", stringSchema().WithFormat("uri")),
		member("title", "Plain text.", stringSchema()),
		member("description", "HTML, sanitised on write; \"\" for a password-protected event.", stringSchema()),
		member("excerpt", "HTML; \"\" when there is none.", stringSchema()),
		member("slug", "", stringSchema()),
		memberRef("image", "Image"),
		member("all_day", "Whether the event lasts whole days (start 00:00:00, end 23:59:59).", nullableBooleanSchema()),
		member("start_date", "Start, on the event's wall clock.", dateSchema()),
		memberRef("start_date_details", "DateDetails"),
		member("end_date", "End, on the event's wall clock.", dateSchema()),
		memberRef("end_date_details", "DateDetails"),
		member("utc_start_date", "Start in UTC.", dateSchema()),
		memberRef("utc_start_date_details", "DateDetails"),
		member("utc_end_date", "End in UTC.", dateSchema()),
		memberRef("utc_end_date_details", "DateDetails"),
		member("timezone", "The event's time zone: an IANA name, UTC or UTC±H[:MM].", stringSchema()),
		member("timezone_abbr", "The zone's abbreviation at the start (EST, CEST, UTC+2…).", stringSchema()),
		member("cost", "The formatted cost (\"$10 – $20\", \"Free\"); \"\" when there is none.", stringSchema()),
		memberRef("cost_details", "CostDetails"),
		member("website", "The event's website.", stringSchema()),
		member("show_map", "", nullableBooleanSchema()),
		member("show_map_link", "", nullableBooleanSchema()),
		member("hide_from_listings", "Hidden events are left out of GET /events but readable by ID.", nullableBooleanSchema()),
		member("sticky", "", nullableBooleanSchema()),
		member("featured", "", nullableBooleanSchema()),
		member("ticketed", "Whether the event sells tickets.", nullableBooleanSchema()),
		member("parent", "The parent event's ID; 0 when it has none, as WordPress's post_parent.",
			integerSchema().WithMin(0)),
		member("series_id", "The series this occurrence belongs to; 0 for a single event and for a series record.",
			integerSchema().WithMin(0)),
		member("recurrence", "The series' RFC 5545 lines, normalised, on the series record and on each occurrence; "+
			"[] otherwise.", arraySchema(stringSchema().NewRef())),
		member("recurrence_text", "An English summary of the series, e.g. \"Every week on Tuesday and Thursday at "+
			"18:00, 10 times\"; \"\" when not recurring.", stringSchema()),
		member("recurrence_id", "An occurrence's original start (RFC 5545 RECURRENCE-ID), formatted like start_date; "+
			"null otherwise.", dateSchema().WithNullable()),
		member("is_exception", "Whether this occurrence was edited on its own.", booleanSchema()),
		member("next_occurrences", "On a series record only: up to 5 upcoming occurrences.",
			arraySchema(closedObject("", []string{"id", "start_date", "end_date"},
				member("id", "", integerSchema().WithMin(1)), member("start_date", "", dateSchema()),
				member("end_date", "", dateSchema())).NewRef())),
		member("categories", "", arraySchema(schemaRef("EmbeddedTerm"))),
		member("tags", "", arraySchema(schemaRef("EmbeddedTerm"))),
		member("venue", "The venue as an object when the event has one, [] when it has none, an array when it has "+
			"several.", oneOfSchema("",
			schemaRef("Venue"),
			emptyArraySchema().NewRef(),
			arraySchema(schemaRef("Venue")).WithMinItems(2).NewRef(),
		)),
		member("organizer", "Always an array, in the order given on write.", arraySchema(schemaRef("Organizer"))),
		member("custom_fields", "Additional fields: [] when there are none.", oneOfSchema("",
			emptyArraySchema().NewRef(),
			mapSchema(closedObject("", []string{"label", "value"},
				member("label", "", stringSchema()), member("value", "", openapi3.NewSchema())).NewRef()).NewRef(),
		)),
		memberRef("json_ld", "JSONLD"),
	)
	var required []string
	for _, pr := range props {
		if pr.name != "json_ld" && pr.name != "next_occurrences" {
			required = append(required, pr.name)
		}
	}
	return closedObject("An event (ticketed and parent are this API's additions). json_ld only on single reads. "+
		"In lists and embeds a password-protected event the caller may not edit is redacted: "+
		"texts become \"\", image false, flags null, categories, tags, venue, organizer and custom_fields [].",
		required, props...)
}

func venueSchema() *openapi3.Schema {
	props := recordHeaderMembers("venue")
	props = append(props,
		member("venue", "The venue's name (plain text).", stringSchema()),
		member("description", "HTML.", stringSchema()),
		member("excerpt", "HTML.", stringSchema()),
		member("slug", "", stringSchema()),
		memberRef("image", "Image"),
		member("address", "", stringSchema()),
		member("city", "", stringSchema()),
		member("country", "", stringSchema()),
		member("province", "", stringSchema()),
		member("state", "", stringSchema()),
		member("zip", "", stringSchema()),
		member("phone", "", stringSchema()),
		member("website", "", stringSchema()),
		member("stateprovince", "", stringSchema()),
		member("geo_lat", "Latitude, when set (geolocation); 0 when redacted.", numberSchema().WithMin(-90).WithMax(90)),
		member("geo_lng", "Longitude, when set; 0 when redacted.", numberSchema().WithMin(-180).WithMax(180)),
		memberRef("json_ld", "JSONLD"),
		member("show_map", "Whether events at the venue show a map.", nullableBooleanSchema()),
		member("show_map_link", "Whether events at the venue show a map link.", nullableBooleanSchema()),
	)
	props = append(props, globalIDMembers()...)
	return closedObject("A venue. Empty members are omitted, so a venue without an address has no "+
		"address key. json_ld only on single reads. A password-protected venue is redacted as lists redact it "+
		"(its name stays visible).",
		[]string{"id", "status", "date", "date_utc", "modified", "modified_utc", "url", "venue", "show_map",
			"show_map_link", "global_id", "global_id_lineage"},
		props...)
}

func organizerSchema() *openapi3.Schema {
	props := recordHeaderMembers("organizer")
	props = append(props,
		member("organizer", "The organizer's name (plain text).", stringSchema()),
		member("description", "HTML.", stringSchema()),
		member("excerpt", "HTML.", stringSchema()),
		member("slug", "", stringSchema()),
		memberRef("image", "Image"),
		member("phone", "", stringSchema()),
		member("website", "", stringSchema()),
		member("email", "", stringSchema()),
		memberRef("json_ld", "JSONLD"),
	)
	props = append(props, globalIDMembers()...)
	return closedObject("An organizer. Empty members are omitted. json_ld only on single reads. A "+
		"password-protected organizer is redacted as lists redact it (its name stays visible).",
		[]string{"id", "status", "date", "date_utc", "modified", "modified_utc", "url", "organizer", "global_id",
			"global_id_lineage"},
		props...)
}

func termSchema(description, taxonomy string, hierarchical bool) *openapi3.Schema {
	required := []string{"id", "count", "description", "name", "slug", "taxonomy", "meta", "url", "urls"}
	props := []schemaMember{
		member("id", "The term ID.", integerSchema().WithMin(1)),
		member("count", "How many published events carry the term.", integerSchema().WithMin(0)),
		member("description", "", stringSchema()),
		member("name", "", stringSchema()),
		member("slug", "", stringSchema()),
		member("taxonomy", "", stringSchema().WithEnum(taxonomy)),
		member("meta", "Always [] (no term meta is exposed).", oneOfSchema("", emptyArraySchema().NewRef(),
			openapi3.NewObjectSchema().NewRef())),
		member("url", "The term's public archive page.", stringSchema().WithFormat("uri")),
		memberRef("urls", "TermURLs"),
		member("_links", "WordPress-style links (optional).", openapi3.NewObjectSchema()),
	}
	if hierarchical {
		required = append(required, "parent")
		props = append(props, member("parent", "The parent category's ID; 0 for a top-level category.", integerSchema().WithMin(0)))
	}
	return closedObject(description, required, props...)
}

// listSchema is a list envelope: events, venues and organizers put the items first, terms last.
func listSchema(key, item string, itemsFirst bool) *openapi3.Schema {
	description := "A page of " + key + ". next_rest_url and previous_rest_url are present only " +
		"when there is such a page. The same totals are in the X-TEC-Total and X-TEC-TotalPages headers, and the " +
		"links in the Link header."
	if !itemsFirst {
		description += " A page past the last is an empty 200."
	} else {
		description += " A page past the last is a 404."
	}
	return closedObject(description, []string{key, "rest_url", "total", "total_pages"},
		member(key, "", arraySchema(schemaRef(item))),
		member("rest_url", "This page's URL, with the effective query.", stringSchema().WithFormat("uri")),
		member("next_rest_url", "The next page.", stringSchema().WithFormat("uri")),
		member("previous_rest_url", "The previous page.", stringSchema().WithFormat("uri")),
		member("total", "How many "+key+" match, over all pages.", integerSchema().WithMin(0)),
		member("total_pages", "How many pages there are; 0 when nothing matches.", integerSchema().WithMin(0)),
		member("deleted", "Only in an answer to sync_token: the IDs of the page's changed "+key+" that the list "+
			"does not show (deleted, trashed, no longer visible to the caller, or no longer matching the filters). "+
			"With sync_token, total counts the changed "+key+" of every page, shown or deleted.",
			arraySchema(integerSchema().WithMin(1).NewRef())),
	)
}

func errorSchema() *openapi3.Schema {
	data := openObject(closedObject("status is the HTTP status. rest_missing_callback_param lists the missing parameters in params; "+
		"rest_invalid_param maps each bad parameter to a reason in params, with details ([] or an object of "+
		"structured errors). Some errors add members (term_exists: term_id).",
		[]string{"status"},
		member("status", "", integerSchema().WithMin(400).WithMax(599)),
		member("params", "", oneOfSchema("",
			arraySchema(stringSchema().NewRef()).NewRef(),
			mapSchema(stringSchema().NewRef()).NewRef(),
		)),
		member("details", "", oneOfSchema("", emptyArraySchema().NewRef(), openapi3.NewObjectSchema().NewRef())),
	))
	return closedObject("The error body of every failed request.",
		[]string{"code", "message", "data"},
		member("code", "A stable, machine-readable code (rest_no_route, rest_invalid_param, rest-event-not-found…).", stringSchema()),
		member("message", "A human-readable message.", stringSchema()),
		schemaMember{"data", data.NewRef()},
		member("additional_data", "Earlier error payloads, as WordPress reports them.", openapi3.NewArraySchema().
			WithItems(openapi3.NewSchema())),
		member("additional_errors", "Further errors of the same request.", openapi3.NewArraySchema().
			WithItems(openapi3.NewObjectSchema())),
	)
}

// namespaceIndexSchema describes GET /; its helper shapes are components too.
func namespaceIndexSchema(schemas openapi3.Schemas) *openapi3.Schema {
	links := func(rel string) schemaMember {
		return member(rel, "", arraySchema(closedObject("", []string{"href"}, member("href", "", stringSchema().WithFormat("uri"))).NewRef()))
	}
	arg := closedObject("One parameter: JSON-schema keywords and whether it is required.", []string{"required"},
		member("required", "", booleanSchema()),
		member("default", "", openapi3.NewSchema().WithNullable()),
		member("description", "", stringSchema()),
		member("type", "", stringSchema()),
		member("format", "", stringSchema()),
		member("enum", "", openapi3.NewArraySchema().WithItems(openapi3.NewSchema())),
		member("items", "", openapi3.NewObjectSchema()),
		member("oneOf", "", openapi3.NewArraySchema().WithItems(openapi3.NewObjectSchema())),
	)
	schemas["IndexArg"] = arg.NewRef()
	methods := func() *openapi3.Schema {
		return arraySchema(stringSchema().WithEnum("GET", "POST", "PUT", "PATCH", "DELETE").NewRef()).WithMinItems(1)
	}
	schemas["IndexEndpoint"] = closedObject("One endpoint of a route.", []string{"methods", "args"},
		member("methods", "", methods()),
		member("args", "The parameters by name ([] when there are none).", oneOfSchema("",
			emptyArraySchema().NewRef(),
			mapSchema(schemaRef("IndexArg")).WithMinProperties(1).NewRef(),
		)),
	).NewRef()
	schemas["IndexRoute"] = closedObject("One route: its methods and endpoints; _links.self for routes without "+
		"path variables.", []string{"namespace", "methods", "endpoints"},
		member("namespace", "", stringSchema()),
		member("methods", "", methods()),
		member("endpoints", "", arraySchema(schemaRef("IndexEndpoint")).WithMinItems(1)),
		member("_links", "", closedObject("", []string{"self"}, links("self"))),
	).NewRef()
	routes := mapSchema(schemaRef("IndexRoute"))
	routes.Description = "Every route of the namespace, keyed by its pattern (\"/calendar/events/v1/events/(?P<id>\\d+)\")."
	return closedObject("The namespace index.", []string{"namespace", "routes", "_links"},
		member("namespace", "", stringSchema()),
		schemaMember{"routes", routes.NewRef()},
		member("_links", "", closedObject("", []string{"up"}, links("up"))),
	)
}

// webhookSchema is a subscription; only the answer to its create has the secret.
func webhookSchema(withSecret bool) *openapi3.Schema {
	required := []string{"id", "url", "events", "created_at", "updated_at"}
	members := []schemaMember{
		member("id", "", integerSchema().WithMin(1)),
		member("url", "Where deliveries are POSTed.", stringSchema().WithFormat("uri")),
		member("events", "The change types delivered; [\"*\"] for all.", arraySchema(stringSchema().NewRef())),
		member("created_at", "UTC.", stringSchema()),
		member("updated_at", "UTC.", stringSchema()),
	}
	description := "A webhook subscription. Its secret is never shown again after the create."
	if withSecret {
		required = append(required, "secret")
		members = append(members, member("secret", "The key of the deliveries' signatures: keep it, it is not "+
			"shown again.", stringSchema()))
		description = "A webhook subscription as created, with its secret (shown this once)."
	}
	return closedObject(description, required, members...)
}

// webhookDeliverySchema is an entry of a subscription's delivery log.
func webhookDeliverySchema() *openapi3.Schema {
	return closedObject("One delivery: a change POSTed, or to be POSTed, to a subscription.",
		[]string{"id", "type", "record_id", "status", "attempts", "last_status", "last_error", "created_at",
			"next_attempt_at", "done_at"},
		member("id", "Also the X-Calendar-Delivery header and the body's id.", integerSchema().WithMin(1)),
		member("type", "The change type, such as event.updated.", stringSchema()),
		member("record_id", "The ID of the record that changed.", integerSchema().WithMin(1)),
		member("status", "pending (waiting for an attempt or being sent), sent (a 2xx answer) or failed (no 2xx "+
			"answer within the retry span).", stringSchema().WithEnum("pending", "sent", "failed")),
		member("attempts", "Attempts made so far.", integerSchema().WithMin(0)),
		member("last_status", "The HTTP status of the last answer; 0 when there was none (no attempt yet, "+
			"timeout, refused or closed connection).", integerSchema().WithMin(0)),
		member("last_error", "What went wrong in the last attempt; empty when it succeeded or none was made.",
			stringSchema()),
		member("created_at", "UTC.", stringSchema()),
		member("next_attempt_at", "When a pending delivery is attempted next (UTC); null otherwise.",
			stringSchema().WithNullable()),
		member("done_at", "When it was sent or given up (UTC); null while pending.", stringSchema().WithNullable()),
	)
}
