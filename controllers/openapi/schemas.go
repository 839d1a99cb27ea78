package openapi

import (
	"github.com/getkin/kin-openapi/openapi3"
)

// The component schemas of the OpenAPI document: the records, lists, errors and index the API answers with.
// Those of events, venues, organizers and terms, and of their parts, are derived from their API types (Shapes),
// so that a member the service writes cannot be missing from the document, nor the reverse. Endpoints name them
// in Respond; the test suite validates every response against them, so they are strict:
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

func stringSchema() *openapi3.Schema  { return openapi3.NewStringSchema() }
func integerSchema() *openapi3.Schema { return openapi3.NewIntegerSchema() }
func numberSchema() *openapi3.Schema  { return openapi3.NewFloat64Schema() }
func booleanSchema() *openapi3.Schema {
	return openapi3.NewBoolSchema()
}

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

// componentSchemas returns every named schema of the document; those of the records and their parts are derived
// from their API types in shapes.
func componentSchemas(shapes Shapes) openapi3.Schemas {
	schemas := openapi3.Schemas{}
	add := func(name string, s *openapi3.Schema) { schemas[name] = s.NewRef() }

	add("ICalendar", describe(stringSchema().WithPattern(icalendarPattern), "An iCalendar (RFC 5545) "+
		"object, text/calendar; charset=utf-8: CRLF line ends, lines folded at 75 octets. VERSION:2.0, PRODID, "+
		"CALSCALE:GREGORIAN and, for feeds, X-WR-CALNAME, X-WR-TIMEZONE (the site time zone), REFRESH-INTERVAL and "+
		"X-PUBLISHED-TTL (PT1H) and, when the feed stopped at CALENDAR_ICAL_MAX_EVENTS, X-WR-CALDESC saying so; "+
		"then one VTIMEZONE per time zone the events use (explicit STANDARD/DAYLIGHT observances for the years "+
		"they cover, from the zone database), then one VEVENT per event."))
	add("DateDetails", shapes.shapeSchema("DateDetails", "A date split into its parts, each a zero-padded string."))
	add("CostDetails", shapes.shapeSchema("CostDetails", "The parsed cost: the symbol and its position as used, "+
		"and the numeric values as strings sorted numerically ([] when there is no cost). A password-protected "+
		"event shows empty strings and []."))
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
	add("TermURLs", shapes.shapeSchema("TermURLs", "API links of a term."))
	add("EmbeddedTerm", shapes.shapeSchema("EmbeddedTerm", "A category or tag as embedded in an event: the term "+
		"object, which differs from the standalone term (no url, no meta; term_group, term_taxonomy_id and filter)."))
	add("JSONLD", &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeObject}, Required: []string{"@type"},
		Description: "schema.org data of the record, on single reads only.",
		Properties: openapi3.Schemas{
			"@context": stringSchema().NewRef(),
			"@type":    stringSchema().NewRef(),
		}})
	add("Venue", shapes.shapeSchema("Venue", "A venue. Empty members are omitted, so a venue without an address "+
		"has no address key. json_ld only on single reads. A password-protected venue is redacted as lists redact "+
		"it (its name stays visible)."))
	add("Organizer", shapes.shapeSchema("Organizer", "An organizer. Empty members are omitted. json_ld only on "+
		"single reads. A password-protected organizer is redacted as lists redact it (its name stays visible)."))
	add("Event", shapes.shapeSchema("Event", "An event (ticketed, parent and the series members are this API's "+
		"additions). json_ld only on single reads. In lists and embeds a password-protected event the caller may "+
		"not edit is redacted: texts become \"\", image false, flags null, categories, tags, venue, organizer and "+
		"custom_fields []."))
	add("Category", termSchema(shapes.shapeSchema("Category", "An event category."), "tribe_events_cat", true))
	add("Tag", termSchema(shapes.shapeSchema("Tag", "An event tag; tags have no parent."), "post_tag", false))

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

// termSchema completes the schema derived from the term type for one taxonomy: its taxonomy name, the parent a
// category always has and a tag never has, and WordPress's optional _links, which The Events Calendar sends and
// this service does not.
func termSchema(s *openapi3.Schema, taxonomy string, hierarchical bool) *openapi3.Schema {
	s.Properties["taxonomy"].Value.Enum = []any{taxonomy}
	if hierarchical {
		s.Required = append(s.Required, "parent")
	} else {
		delete(s.Properties, "parent")
	}
	s.Properties["_links"] = member("", "WordPress-style links (optional).", openapi3.NewObjectSchema()).schema
	return s
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
