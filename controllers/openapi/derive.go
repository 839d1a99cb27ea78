package openapi

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// Shapes are the API types whose component schemas the document derives from their Go fields, by component name
// (one type may serve several components: categories and tags are both terms). A member's name and whether it
// is required come from its json tag (every member without omitempty is always written, so it is required), its
// type from the field's Go type, its description from the doc tag, and what the Go type cannot say from the
// schema tag:
//
//   - ref=Name: the member is the component Name; items=Name: an array of them (for JSON written before);
//   - date, author, globalid, lineage, status, venue, custom_fields, meta: the member is that shape of
//     schemaFormats;
//   - format=F, enum=a|b, min=N, max=N, minItems=N, pattern=P (the rest of the tag): the JSON-schema keywords.
//
// On an array every keyword but minItems describes the items. A pointer without omitempty is nullable (null is
// written for it); unsigned integers have a minimum of 0; a struct type that is itself a component is a reference
// to it, any other struct an inline closed object.
type Shapes map[string]reflect.Type

// schemaFormats are the member shapes schema tags name.
var schemaFormats = map[string]func() *openapi3.Schema{
	"date":     dateSchema,
	"author":   func() *openapi3.Schema { return stringSchema().WithPattern(schemaAuthorPattern) },
	"globalid": func() *openapi3.Schema { return stringSchema().WithPattern(schemaGlobalIDPattern) },
	"lineage": func() *openapi3.Schema {
		return arraySchema(stringSchema().WithPattern(schemaGlobalIDPattern).NewRef()).WithMinItems(1)
	},
	"status": func() *openapi3.Schema { return stringSchema().WithEnum(schemaStatuses...) },
	"venue": func() *openapi3.Schema {
		return oneOfSchema("", schemaRef("Venue"), emptyArraySchema().NewRef(),
			arraySchema(schemaRef("Venue")).WithMinItems(2).NewRef())
	},
	"custom_fields": func() *openapi3.Schema {
		return oneOfSchema("", emptyArraySchema().NewRef(),
			mapSchema(closedObject("", []string{"label", "value"},
				member("label", "", stringSchema()), member("value", "", openapi3.NewSchema())).NewRef()).NewRef())
	},
	"meta": func() *openapi3.Schema {
		return oneOfSchema("", emptyArraySchema().NewRef(), openapi3.NewObjectSchema().NewRef())
	},
}

// shapeSchema derives the closed object schema of the shape name.
func (sh Shapes) shapeSchema(name, description string) *openapi3.Schema {
	t, ok := sh[name]
	if !ok {
		panic("openapi: no API type for the component " + name)
	}
	s := sh.objectSchema(t)
	s.Description = description
	return s
}

// objectSchema is the closed object of struct type t's JSON members.
func (sh Shapes) objectSchema(t reflect.Type) *openapi3.Schema {
	var props []schemaMember
	var required []string
	sh.collectMembers(t, &props, &required)
	return closedObject("", required, props...)
}

// collectMembers appends the JSON members of struct type t, with those of its embedded structs in their place,
// as encoding/json writes them.
func (sh Shapes) collectMembers(t reflect.Type, props *[]schemaMember, required *[]string) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-":
			continue
		case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
			sh.collectMembers(f.Type, props, required)
			continue
		case !f.IsExported():
			continue
		case name == "":
			name = f.Name
		}
		omitempty := strings.Contains(","+opts+",", ",omitempty,")
		s := sh.memberSchema(f.Type, f.Tag.Get("schema"), !omitempty, name)
		if doc := f.Tag.Get("doc"); doc != "" && s.Ref == "" {
			s.Value.Description = doc
		}
		*props = append(*props, schemaMember{name, s})
		if !omitempty {
			*required = append(*required, name)
		}
	}
}

// rawMessageType is JSON written before: its schema tag says what it holds.
var rawMessageType = reflect.TypeFor[json.RawMessage]()

// memberSchema is the schema of a member of Go type t with the schema tag tag; nullable says that a nil pointer is
// written as null.
func (sh Shapes) memberSchema(t reflect.Type, tag string, nullable bool, name string) *openapi3.SchemaRef {
	opts := schemaOptions(tag)
	if ref, ok := opts["ref"]; ok {
		return schemaRef(ref)
	}
	if t.Kind() == reflect.Pointer {
		s := sh.memberSchema(t.Elem(), tag, false, name)
		if nullable && s.Ref == "" {
			s.Value.Nullable = true
		}
		return s
	}
	if format, ok := opts["named"]; ok {
		build, known := schemaFormats[format]
		if !known {
			panic(fmt.Sprintf("openapi: member %s names the unknown shape %q", name, format))
		}
		return applyOptions(build(), opts).NewRef()
	}
	if items, ok := opts["items"]; ok {
		return applyArrayOptions(arraySchema(schemaRef(items)), opts).NewRef()
	}
	if t.Kind() == reflect.Slice && t != rawMessageType {
		items := sh.memberSchema(t.Elem(), itemsTag(tag), false, name)
		return applyArrayOptions(arraySchema(items), opts).NewRef()
	}
	var s *openapi3.Schema
	switch t.Kind() {
	case reflect.String:
		s = stringSchema()
	case reflect.Bool:
		s = booleanSchema()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		s = integerSchema()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		s = integerSchema().WithMin(0)
	case reflect.Float32, reflect.Float64:
		s = numberSchema()
	case reflect.Struct:
		if component := sh.componentOf(t); component != "" {
			return schemaRef(component)
		}
		s = sh.objectSchema(t)
	default:
		panic(fmt.Sprintf("openapi: member %s of Go type %s needs a schema tag", name, t))
	}
	return applyOptions(s, opts).NewRef()
}

// componentOf is the component a struct type is the API type of, or "" when it is none or several.
func (sh Shapes) componentOf(t reflect.Type) string {
	found := ""
	for name, shape := range sh {
		if shape == t {
			if found != "" {
				return ""
			}
			found = name
		}
	}
	return found
}

// schemaOptions splits a schema tag into its keywords; a bare word is a shape of schemaFormats ("named").
func schemaOptions(tag string) map[string]string {
	opts := map[string]string{}
	for tag != "" {
		var opt string
		if strings.HasPrefix(tag, "pattern=") {
			opt, tag = tag, "" // a pattern may hold commas: it is the rest of the tag
		} else {
			opt, tag, _ = strings.Cut(tag, ",")
		}
		key, value, isKeyword := strings.Cut(opt, "=")
		if !isKeyword {
			key, value = "named", opt
		}
		opts[key] = value
	}
	return opts
}

// itemsTag is the schema tag of an array's items: the array's, less minItems.
func itemsTag(tag string) string {
	var kept []string
	for _, opt := range strings.Split(tag, ",") {
		if !strings.HasPrefix(opt, "minItems=") {
			kept = append(kept, opt)
		}
	}
	return strings.Join(kept, ",")
}

// applyArrayOptions sets the keywords of an array schema.
func applyArrayOptions(s *openapi3.Schema, opts map[string]string) *openapi3.Schema {
	if n, ok := opts["minItems"]; ok {
		s.MinItems = mustUint(n)
	}
	return s
}

// applyOptions sets the keywords of a scalar schema.
func applyOptions(s *openapi3.Schema, opts map[string]string) *openapi3.Schema {
	if v, ok := opts["format"]; ok {
		s.Format = v
	}
	if v, ok := opts["pattern"]; ok {
		s.Pattern = v
	}
	if v, ok := opts["enum"]; ok {
		values := strings.Split(v, "|")
		s.Enum = make([]any, len(values))
		for i, value := range values {
			s.Enum[i] = value
		}
	}
	if v, ok := opts["min"]; ok {
		s = s.WithMin(mustFloat(v))
	}
	if v, ok := opts["max"]; ok {
		s = s.WithMax(mustFloat(v))
	}
	return s
}

func mustUint(s string) uint64 {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		panic("openapi: a schema tag's count is not a number: " + s)
	}
	return n
}

func mustFloat(s string) float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		panic("openapi: a schema tag's bound is not a number: " + s)
	}
	return f
}
