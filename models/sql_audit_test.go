package models

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// sqlBuilders are the GORM methods whose first argument is SQL text (or a column or table name spliced into it).
var sqlBuilders = map[string]bool{"Raw": true, "Exec": true, "Where": true, "Or": true, "Not": true, "Order": true,
	"Joins": true, "Select": true, "Group": true, "Having": true, "Table": true, "Distinct": true, "Pluck": true}

// reviewedSQL lists every function of the package that hands GORM SQL text that is not one literal, with where
// each spliced piece comes from. User input never appears: every value is a bound parameter (?), and every
// spliced piece is a constant or comes from a fixed set. A new splice fails TestNoUserInputIsSplicedIntoSQL until
// it is reviewed and listed here; an entry whose function no longer splices fails too, so the list stays exact.
var reviewedSQL = map[string]string{
	"event.go:findEvent":                      "the constant selectEvents; cond is one of two literals (EventByID, EventBySlug); the ID or slug is bound",
	"event_links.go:PairEventVenueCategories": "a literal INSERT … SELECT and, on PostgreSQL, the literal locking clause; the event ID bound",
	"event_links.go:lockLastStarts":           "a literal INSERT … SELECT whose VALUES repeat a literal row of two cast placeholders once per record; every kind and ID bound",
	"event_links.go:LinkNewEvent":             "literal INSERT heads and (?, ?) row placeholders repeated per link, CTE names l0, l1, … from a loop index; every ID, position, taxonomy and delta bound",
	"event_links.go:linkedRecords":            "linkedRecordsSQL of the store's dialect, a package variable assembled from literals (unionAll, the literal branches and their columns, countExpr of the two taxonomies, literal column and parameter names in each dialect's condition); the IDs bound, as a list or as one array literal formatted from numbers",
	"event_refs.go:findEventRefs":             "eventRefsSQL or eventRefsKeySharedSQL, package variables assembled from literals (unionAll, keyShared with literal aliases) and countExpr of the two taxonomies only; IDs, slugs and name keys bound",
	"geo.go:atVenuesWhere":                    "cond is the literal of EventsAtGeolocatedVenues, or EventsNear's literal BETWEEN conditions and distanceKm's SQL (literal column names, the constant Earth radius); every coordinate and the radius bound",
	"term.go:CompactTermCounts":               "tax.table of the two taxonomies; the sums and IDs bound",
	"event_window.go:firstPageOfDays":         "the constants selectEventColumns, fromEvents and eventOrder around windowDaysSQL's statement (reviewed under windowDays) and the page's IDs, the literal @page or the constant categoryPageIDs with Page.literalLimit's clause; the page's IDs a GORM subquery, category, statuses, days, instants and paging bound",
	"event_window.go:listCategory":            "the constants selectEvents and eventOrder around categoryPageIDs with Page.literalLimit's clause (a number formatted from the page size and the literal @offset); category, statuses, instants and offset bound",
	"event_window.go:windowPageDays":          "the constant windowPageDaysSQL with {blocks}, {kept} and {kept_n} literals of listedDays; statuses, days, blocks and the offset bound",
	"event_window.go:windowDays":              "windowDaysSQL's statement: the constant windowKeptSQL or windowBlocksSQL with the constants windowFirstDaySQL and windowLastDaySQL appended or not, then collapsedDays' literal SELECT around the constant seriesInWindowSQL or not, {day} one of two literal day expressions by dialect, {listed} isFalse of the literal column events.hide_from_listings, {table_day} a literal column or a literal cast of a placeholder, {table_group}, {blocks}, {kept}, {kept_n}, {rows}, {listed} and {singles} literals of listedDays, categoryDays or keptSearchDays; statuses, days, blocks and instants bound",
	"event_window.go:listNear":                "circleVenues' common table expression around venuesWithin's condition, then the constants selectEventColumns, fromEvents, eventOrder, nearTotalSQL or nearTotalKeptSQL (around the box's condition on the counts) and nearPageProbed, nearPagePostgres or nearPageSQLite (literal column names, the box and distance built from numbers, which are bound), the page's reach formatted from numbers and Page.literalLimit's clause; coordinates, radius, statuses, instants and offset bound",
	"linked.go:withUpcoming":                  "k.table (venues or organizers) and keptUpcoming's clause (literals, k.code and hiddenInstant's literal placeholder); the instants bound",
	"linked.go:countUpcomingPublished":        "literal counts over keptUpcoming's clause or the constant upcomingPublishedSQL with k.code (a literal of venueKind and organizerKind), hiddenInstant's and hiddenParam's literal placeholders, k.table (of venueKind and organizerKind) and the constant StatusPublish; the day and instants bound",
	"kept_counts.go:SetKeptCountTriggers":     "the literal table and trigger names of keptCountTriggers and one of two literal actions",
	"kept_counts.go:RebuildKeptCounts":        "literal statements with the dialect's literal day expression of literal columns, isFalse of a literal column and literal statuses",
	"event_query.go:EventsListed":             "isFalse of the literal column events.hide_from_listings",
	"event_query.go:EventsMatching":           "termConditions' two expressions per term",
	"event_query.go:termConditions":           "containsFold of the literal columns of searchedColumns and ProtectedFieldsVisible of events; the search terms are bound, wildcards escaped",
	"event_query.go:boolColumn":               "column is a literal of EventsFeatured or EventsTicketed",
	"event_query.go:compareTime":              "cond is a literal of the EventsStarting*/EventsEnding* scopes; the instant is bound",
	"event_query.go:linkedTo":                 "table and column are literals of EventsInCategories, EventsWithTags, EventsAtVenues, EventsByOrganizers",
	"event_query.go:readableBy":               "table is events (EventsVisibleTo) or linkedKind.table (venues, organizers); statuses and user ID bound",
	"search_kept.go:keepSearch":               "its setup statements and dropLeastUsedSearches, literals of search_kept.go; the limit bound",
	"search_kept.go:listKeptSearch":           "keptSearchPage with a literal condition on everyone or none, Page.literalLimit's clause (a number formatted from the page size and the literal @offset), and as {total} the literal 0 or windowDaysSQL's statement (reviewed under windowDays) with keptSearchDays' literals; every value bound",
	"linked.go:LinkedDuplicates":              "EqualFold of the literal column name; the name is bound",
	"term.go:vacuumSmallTables":               "tables is a literal list of table names from VacuumTermCounts, VacuumWebhookQueue and CompactVenueWindowCounts",
	"changes.go:deleteInBatches":              "statement is one of the literal DELETEs of PruneChanges and PruneDeliveries; the cutoff, status and batch size bound",
	"webhooks.go:ClaimDeliveries":             "a literal WITH … UPDATE … RETURNING with, on PostgreSQL, the literal locking clause; instants and the limit bound",
	"linked.go:ListLinked":                    "k.table is venues or organizers (venueKind, organizerKind: unexported, fixed)",
	"linked.go:filter":                        "t is the kind's table; linkedTo pieces are the kind's join names and literal conditions; values bound",
	"linked.go:searchCondition":               "combines ContainsFold expressions over the kind's fixed column list",
	"linked.go:unlinkFromEvents":              "joinTable and joinColumn of venueKind or organizerKind",
	"event_links.go:unlinkEvents":             "joinTable and joinColumn of venueKind, organizerKind or the two taxonomies (unlinkFromEvents, DeleteTerm); the ID bound",
	"search.go:ContainsFold":                  "foldSQL (a fixed function name) of a trusted column; the text is bound, wildcards escaped",
	"search.go:EqualFold":                     "foldSQL (a fixed function name) of a trusted column; the text is bound",
	"slug.go:UniqueSlug":                      "table is events (the one caller outside models passes the literal) or a kind's or taxonomy's table; the candidate slugs are bound",
	"term.go:DeleteTerm":                      "tax.table of CategoryTaxonomy or TagTaxonomy (Taxonomy's fields are unexported: no other values exist)",
	"event_window.go:categoriesTotal":         "one of the two literal counts (countCategoriesEvents, countCategoryEvents); the categories, statuses and instants bound",
	"term.go:Term":                            "tax.table, tax.termColumns() and tax.countedAtExpr (literals) of the two taxonomies",
	"term.go:touchDescendants":                "tax.table of the two taxonomies; the instant and the ID bound",
	"term.go:LockTerm":                        "tax.table of the two taxonomies; the ID bound",
	"term.go:Terms":                           "tax.table of the two taxonomies; termOrder is reviewed below",
	"term.go:UpdateTerm":                      "tax.table of the two taxonomies; the values are bound by Updates",
	"term.go:adoptChildren":                   "tax.table of the two taxonomies",
	"term.go:ancestry":                        "tax.table of the two taxonomies; IDs bound",
	"term.go:ensureNameFree":                  "tax.table of the two taxonomies; the name key is bound",
	"term.go:insertTerm":                      "tax.table of the two taxonomies",
	"term.go:missingIDs":                      "table is a taxonomy's table, or the literal venues or organizers (MissingVenueIDs, MissingOrganizerIDs)",
	"term.go:scope":                           "tax.joinColumn and tax.joinTable of the two taxonomies; every filter value bound, wildcards escaped",
	"term.go:termOrder":                       "the column comes from termOrderColumns, an allow-list keyed by orderby (unknown keys: name_key); the direction is ASC or DESC; CASE positions are loop indexes and the IDs bound",
	"term.go:termsNamed":                      "tax.table of the two taxonomies; slugs and name keys bound",
	"series_links.go:unlinkSeries":            "list.column is a literal of seriesLists (keyed by the trusted link-table name); CASE arms are literal placeholders; IDs, lists and the pattern bound",
	"series_update.go:SetOccurrenceDates":     "literal UPDATE heads with CASE arms of literal placeholders (a literal CAST on PostgreSQL) repeated per occurrence; IDs, instants, abbreviations bound",
	"series.go:DetachEventLinks":              "table is one of five literal link-table names in a loop; the event ID bound",
}

// TestNoUserInputIsSplicedIntoSQL reads the package's source and finds every SQL builder call (and every
// clause.Expr / clause.OrderBy) whose SQL text is not a single literal: each must be a reviewed site of reviewedSQL.
// With it, "no user input is ever interpolated into SQL" is checked on every change rather than once:
// nothing above models builds a query (only this package imports GORM, which ENGINEERING.md requires), values go
// in as bound parameters, and every spliced name is listed here with its origin.
func TestNoUserInputIsSplicedIntoSQL(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	found := map[string][]string{}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		file, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range file.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			site := name + ":" + fn.Name.Name
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if expr := splicedSQL(n); expr != nil {
					found[site] = append(found[site], fset.Position(expr.Pos()).String())
				}
				return true
			})
		}
	}
	var unreviewed []string
	for site, at := range found {
		if _, ok := reviewedSQL[site]; !ok {
			unreviewed = append(unreviewed, site+" at "+strings.Join(at, ", "))
		}
	}
	sort.Strings(unreviewed)
	for _, u := range unreviewed {
		t.Errorf("SQL text built from non-literal pieces in %s: check that no piece can come from a request, "+
			"then list the function in reviewedSQL with where each piece comes from", u)
	}
	for site := range reviewedSQL {
		if _, ok := found[site]; !ok {
			t.Errorf("reviewedSQL lists %s, which no longer builds SQL from non-literal pieces: remove it", site)
		}
	}
	t.Logf("%d functions splice reviewed names into SQL; every other SQL text of models is a literal", len(found))
}

// splicedSQL returns the SQL text argument of n when n hands GORM SQL that is not a literal (a string literal, or
// a constant written as one), else nil.
func splicedSQL(n ast.Node) ast.Expr {
	switch x := n.(type) {
	case *ast.CallExpr:
		sel, ok := x.Fun.(*ast.SelectorExpr)
		if !ok || !sqlBuilders[sel.Sel.Name] || len(x.Args) == 0 {
			return nil
		}
		if !isLiteralSQL(x.Args[0]) {
			return x.Args[0]
		}
	case *ast.CompositeLit:
		sel, ok := x.Type.(*ast.SelectorExpr)
		if !ok || (sel.Sel.Name != "Expr" && sel.Sel.Name != "OrderBy") {
			return nil
		}
		for _, elt := range x.Elts {
			kv, ok := elt.(*ast.KeyValueExpr)
			if key, isIdent := kv.Key.(*ast.Ident); ok && isIdent && key.Name == "SQL" && !isLiteralSQL(kv.Value) {
				return kv.Value
			}
		}
	}
	return nil
}

// isLiteralSQL tells whether e is SQL text fixed at compile time: a string literal, a concatenation of literals, a
// package constant, or not text at all (a struct or clause expression, whose own SQL the walk checks where built).
func isLiteralSQL(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.BasicLit:
		return true
	case *ast.BinaryExpr:
		return isLiteralSQL(x.X) && isLiteralSQL(x.Y)
	case *ast.ParenExpr:
		return isLiteralSQL(x.X)
	case *ast.Ident:
		// Package constants (eventOrder, selectEvents) and struct values (&Event{} as a model) are fixed.
		return x.Obj == nil || x.Obj.Kind == ast.Con
	case *ast.UnaryExpr, *ast.CompositeLit:
		return true
	}
	return false
}
