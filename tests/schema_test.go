package tests

import (
	"sort"
	"strings"
	"sync"
	"testing"

	"gorm.io/gorm/schema"

	"calendar/models"
)

// TestMigratedSchemaMatchesTheModels proves that the migrations of the dialect under test create exactly the
// tables and columns the GORM models map, with the same nullability, and the unique indexes the models declare.
func TestMigratedSchemaMatchesTheModels(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	db := app.Store.DB() // the schema itself is the fact, and no API shows it
	for _, model := range models.Models() {
		s, err := schema.Parse(model, &sync.Map{}, db.NamingStrategy)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(s.Table, func(t *testing.T) {
			if !db.Migrator().HasTable(s.Table) {
				t.Fatalf("table %s is missing", s.Table)
			}
			columns, err := db.Migrator().ColumnTypes(model)
			if err != nil {
				t.Fatal(err)
			}
			inDB := map[string]bool{}
			for _, c := range columns {
				inDB[c.Name()] = true
				f := s.LookUpField(c.Name())
				if f == nil {
					t.Errorf("column %s.%s has no model field", s.Table, c.Name())
					continue
				}
				nullable, ok := c.Nullable()
				wantNullable := !f.NotNull && !f.PrimaryKey
				if ok && !f.PrimaryKey && nullable != wantNullable { // SQLite reports INTEGER PRIMARY KEY as nullable
					t.Errorf("column %s.%s: nullable %v in the database, %v in the model", s.Table, c.Name(), nullable, wantNullable)
				}
			}
			var missing []string
			for _, name := range s.DBNames {
				if !inDB[name] {
					missing = append(missing, name)
				}
			}
			sort.Strings(missing)
			if len(missing) > 0 {
				t.Errorf("model fields without a column in %s: %s", s.Table, strings.Join(missing, ", "))
			}
			for _, idx := range s.ParseIndexes() {
				if idx.Class == "UNIQUE" && !db.Migrator().HasIndex(model, idx.Name) {
					t.Errorf("unique index %s of %s is missing", idx.Name, s.Table)
				}
			}
		})
	}
}

// TestMigratingTwiceChangesNothing proves that start-up on an up-to-date database applies nothing.
func TestMigratingTwiceChangesNothing(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	applied, err := app.Store.Migrate(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(applied) != 0 {
		t.Fatalf("a second migration applied %v", applied)
	}
}
