package openapi

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
)

type derivedPart struct {
	Day string `json:"day" schema:"pattern=^\\d{2}$"`
}

type derivedOpening struct {
	ID     uint64 `json:"id" schema:"min=1" doc:"The ID."`
	Author string `json:"author,omitempty" schema:"author"`
}

type derivedRecord struct {
	derivedOpening
	When     string            `json:"when" schema:"date"`
	Flag     *bool             `json:"flag"`
	Text     *string           `json:"text,omitempty"`
	Part     derivedPart       `json:"part"`
	Inline   struct{ N int }   `json:"inline"`
	Lineage  []string          `json:"lineage" schema:"lineage"`
	Values   []string          `json:"values" schema:"minItems=1,pattern=^\\d+(\\.\\d+)?$"`
	Embeds   []json.RawMessage `json:"embeds" schema:"items=Part"`
	Image    any               `json:"image" schema:"ref=Image"`
	Position string            `json:"position" schema:"enum=prefix|postfix|"`
	Lat      *float64          `json:"lat,omitempty" schema:"min=-90,max=90"`
	hidden   int
	Skipped  int `json:"-"`
}

func TestSchemasDeriveFromTheJSONOfTheirTypes(t *testing.T) {
	shapes := Shapes{"Record": reflect.TypeFor[derivedRecord](), "Part": reflect.TypeFor[derivedPart]()}
	s := shapes.shapeSchema("Record", "A record.")
	var names []string
	for name := range s.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	want := []string{"author", "embeds", "flag", "id", "image", "inline", "lat", "lineage", "part", "position", "text",
		"values", "when"}
	if !slices.Equal(names, want) {
		t.Fatalf("members %v, want %v", names, want)
	}
	if want := []string{"id", "when", "flag", "part", "inline", "lineage", "values", "embeds", "image", "position"}; !slices.Equal(s.Required, want) {
		t.Errorf("required %v, want %v (every member without omitempty, in order)", s.Required, want)
	}
	if s.AdditionalProperties.Has == nil || *s.AdditionalProperties.Has || s.Description != "A record." {
		t.Errorf("not a closed, described object: %+v", s)
	}
	p := s.Properties
	checks := []struct {
		what string
		ok   bool
	}{
		{"id: integer from 1, described", p["id"].Value.Type.Is("integer") && *p["id"].Value.Min == 1 && p["id"].Value.Description == "The ID."},
		{"author: the author pattern", p["author"].Value.Pattern == schemaAuthorPattern},
		{"when: a date", p["when"].Value.Pattern == schemaDatePattern},
		{"flag: a nullable boolean", p["flag"].Value.Type.Is("boolean") && p["flag"].Value.Nullable},
		{"text: an omitted string, not nullable", p["text"].Value.Type.Is("string") && !p["text"].Value.Nullable},
		{"part: the component", p["part"].Ref == "#/components/schemas/Part"},
		{"inline: a closed object of its members", p["inline"].Value.Type.Is("object") &&
			p["inline"].Value.Properties["N"].Value.Type.Is("integer")},
		{"lineage: the named shape", p["lineage"].Value.Type.Is("array") &&
			p["lineage"].Value.Items.Value.Pattern == schemaGlobalIDPattern},
		{"values: pattern on the items, minItems on the array", p["values"].Value.MinItems == 1 &&
			p["values"].Value.Items.Value.Pattern == `^\d+(\.\d+)?$`},
		{"embeds: an array of the component", p["embeds"].Value.Items.Ref == "#/components/schemas/Part"},
		{"image: the component", p["image"].Ref == "#/components/schemas/Image"},
		{"position: the enum", slices.Equal(p["position"].Value.Enum, []any{"prefix", "postfix", ""})},
		{"lat: the bounds", *p["lat"].Value.Min == -90 && *p["lat"].Value.Max == 90},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s", c.what)
		}
	}
}

func TestAMemberTheGoTypeCannotDescribeNeedsASchemaTag(t *testing.T) {
	type untagged struct {
		Any any `json:"any"`
	}
	defer func() {
		if recover() == nil {
			t.Fatal("an interface member without a schema tag was derived")
		}
	}()
	Shapes{"U": reflect.TypeFor[untagged]()}.shapeSchema("U", "")
}
