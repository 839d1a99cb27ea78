package main

import (
	"context"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"calendar/models"
)

// dataset sizes of the targets, apart from the number of events, which is a flag.
const (
	seedVenues     = 5000
	seedOrganizers = 2000
	seedTopCats    = 10 // each with 5 children: 60 categories
	seedChildCats  = 5
	seedTags       = 500
	seedBatch      = 2000 // events made and written per transaction
)

var (
	titleWords = []string{"Jazz", "Market", "Festival", "Lecture", "Workshop", "Concert", "Poetry", "Yoga", "Theatre",
		"Hackathon", "Meetup", "Gala", "Film", "Dance", "Choir", "Exhibition", "Tasting", "Run", "Fair", "Quiz"}
	adjectives = []string{"Grand", "Local", "Evening", "Morning", "Open", "Community", "Summer", "Winter", "Late",
		"Family", "Annual", "Weekly"}
	fillerWords = []string{"music", "art", "garden", "food", "science", "history", "children", "outdoor", "wine",
		"books", "coffee", "sport", "craft", "photography", "jazz", "cinema", "ballet", "opera", "comedy", "blues"}
	// vocabulary is what descriptions are made of: a few hundred words, so that a word matches a few percent of
	// events, as in a real calendar (a tiny vocabulary would put every word in half of the descriptions).
	vocabulary = makeVocabulary()
	cities     = []struct {
		name, state string
		lat, lng    float64
	}{
		{"New York", "NY", 40.7128, -74.0060}, {"Chicago", "IL", 41.8781, -87.6298}, {"Austin", "TX", 30.2672, -97.7431},
		{"Seattle", "WA", 47.6062, -122.3321}, {"Denver", "CO", 39.7392, -104.9903}, {"Boston", "MA", 42.3601, -71.0589},
		{"Atlanta", "GA", 33.7490, -84.3880}, {"Portland", "OR", 45.5152, -122.6784}, {"Miami", "FL", 25.7617, -80.1918},
		{"Madison", "WI", 43.0731, -89.4012},
	}
)

// seeder fills an empty, migrated database with a realistic calendar through the models, in batches.
type seeder struct {
	db     *gorm.DB
	store  *models.Store
	rng    *rand.Rand
	now    time.Time
	author uint64
	// counts are the number of published events of each category and tag, kept while the events are made.
	categoryCounts, tagCounts map[uint64]int64
}

// seed writes the venues, organizers, categories, tags and n events (a share of them occurrences of series), and
// the term counts.
func seed(ctx context.Context, store *models.Store, n int, seriesShare float64, authorID uint64) error {
	plan, err := newSeriesPlan(n, seriesShare)
	if err != nil {
		return err
	}
	// One INSERT may carry 65,535 values on PostgreSQL but only 32,766 on SQLite: rows per INSERT are sized for that.
	rowsPerInsert := seedBatch
	if store.Dialect() == models.SQLite {
		rowsPerInsert = 500
	}
	s := &seeder{db: store.DB().WithContext(ctx).Session(&gorm.Session{CreateBatchSize: rowsPerInsert}), store: store,
		rng: rand.New(rand.NewPCG(42, 2026)), now: time.Now().UTC().Truncate(time.Second), author: authorID,
		categoryCounts: map[uint64]int64{}, tagCounts: map[uint64]int64{}}
	steps := []struct {
		name string
		fn   func() error
	}{
		{"venues", s.venues}, {"organizers", s.organizers}, {"categories", s.categories}, {"tags", s.tags},
		{"events", func() error { return s.events(ctx, plan) }}, {"sequences and counts", func() error { return s.finish(store) }},
	}
	for _, step := range steps {
		start := time.Now()
		if err := step.fn(); err != nil {
			return fmt.Errorf("seeding %s: %w", step.name, err)
		}
		log.Printf("seeded %s in %s", step.name, time.Since(start).Round(time.Millisecond))
	}
	return nil
}

func (s *seeder) pick(list []string) string { return list[s.rng.IntN(len(list))] }

func (s *seeder) words(n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = s.pick(vocabulary)
	}
	return strings.Join(w, " ")
}

// makeVocabulary builds 400 pronounceable words from syllables, plus the filler words.
func makeVocabulary() []string {
	syllables := []string{"ka", "lo", "mi", "ren", "to", "sa", "vel", "dor", "pe", "nu", "ri", "shan", "ta", "go", "lin", "mar", "fe", "zo", "bri", "den"}
	words := append([]string(nil), fillerWords...)
	for i := 0; len(words) < 400+len(fillerWords); i++ {
		words = append(words, syllables[i%20]+syllables[(i/20)%20]+syllables[(i*7+3)%20])
	}
	return words
}

func (s *seeder) venues() error {
	rows := make([]models.Venue, 0, seedVenues)
	for i := 1; i <= seedVenues; i++ {
		c := cities[i%len(cities)]
		// Spread venues up to ~60 km around their city so that radius queries select a realistic share.
		lat := c.lat + (s.rng.Float64()-0.5)*1.0
		lng := c.lng + (s.rng.Float64()-0.5)*1.0/math.Cos(c.lat*math.Pi/180)
		published := s.now.Add(-time.Duration(seedVenues-i) * time.Hour)
		rows = append(rows, models.Venue{ID: uint64(i), AuthorID: s.author, Status: models.StatusPublish,
			Name:        fmt.Sprintf("Venue %d %s", i, s.pick([]string{"Hall", "Club", "Park", "Arena", "Gallery"})),
			Description: "<p>" + s.words(12) + "</p>", Slug: fmt.Sprintf("venue-%d", i),
			Address: fmt.Sprintf("%d Main St", 100+i), City: c.name, Country: "United States", State: c.state,
			Zip: fmt.Sprintf("%05d", 10000+i), Phone: fmt.Sprintf("555-%04d", i%10000), Website: fmt.Sprintf("https://venue%d.example.com", i),
			StateProvince: c.state, ShowMap: true, ShowMapLink: true, GeoLat: &lat, GeoLng: &lng,
			PublishedAt: published, CreatedAt: published, UpdatedAt: published})
	}
	return s.db.Omit(clause.Associations).Create(&rows).Error
}

func (s *seeder) organizers() error {
	rows := make([]models.Organizer, 0, seedOrganizers)
	for i := 1; i <= seedOrganizers; i++ {
		published := s.now.Add(-time.Duration(seedOrganizers-i) * time.Hour)
		rows = append(rows, models.Organizer{ID: uint64(i), AuthorID: s.author, Status: models.StatusPublish,
			Name: fmt.Sprintf("Organizer %d", i), Slug: fmt.Sprintf("organizer-%d", i),
			Phone: fmt.Sprintf("555-1%03d", i%1000), Website: fmt.Sprintf("https://org%d.example.com", i),
			Email: fmt.Sprintf("org%d@example.com", i), PublishedAt: published, CreatedAt: published, UpdatedAt: published})
	}
	return s.db.Omit(clause.Associations).Create(&rows).Error
}

func (s *seeder) categories() error {
	var rows []models.Category
	id := uint64(0)
	for top := 0; top < seedTopCats; top++ {
		id++
		parent := id
		name := titleWords[top]
		rows = append(rows, models.Category{ID: id, Name: name, Slug: strings.ToLower(name)})
		for child := 0; child < seedChildCats; child++ {
			id++
			childName := adjectives[child] + " " + name
			rows = append(rows, models.Category{ID: id, Name: childName, Slug: models.Slugify(childName, "c"), ParentID: &parent})
		}
	}
	return s.db.Omit(clause.Associations).Create(&rows).Error
}

func (s *seeder) tags() error {
	rows := make([]models.Tag, 0, seedTags)
	for i := 1; i <= seedTags; i++ {
		name := fmt.Sprintf("%s %d", fillerWords[i%len(fillerWords)], i)
		if i <= len(fillerWords) {
			name = fillerWords[i-1]
		}
		rows = append(rows, models.Tag{ID: uint64(i), Name: name, Slug: models.Slugify(name, "t")})
	}
	return s.db.Omit(clause.Associations).Create(&rows).Error
}

// eventBatch is one batch of events with their links, and the series rows of the series records among them.
type eventBatch struct {
	events      []models.Event
	series      []models.EventSeries
	occurrences []models.EventOccurrence
	venues      []models.EventVenue
	organizers  []models.EventOrganizer
	cats        []models.EventCategory
	tags        []models.EventTag
	pairs       []models.EventVenueCategory
}

// events writes the plan's events spread over three years (one year back, two ahead), each with 1 venue, 1–3
// organizers, 1–3 categories and 0–4 tags (an occurrence has its series'), and the plan's series, in batches so
// memory stays bounded: one goroutine makes the next
// batches while this one writes, each batch in its own transaction. On PostgreSQL the batches fire no trigger (see
// writeBatch), the counts those keep are computed once after the load (RebuildKeptCounts), and the secondary
// indexes of the tables written are dropped first and built again last, as bulk loads do (building an index once
// is far cheaper than updating it, trigram indexes above all, for every row).
func (s *seeder) events(ctx context.Context, plan *seriesPlan) error {
	rebuild, err := s.dropIndexes("events", "event_venues", "event_organizers", "event_categories", "event_tags",
		"event_venue_categories", "event_series", "event_occurrences")
	if err != nil {
		return err
	}
	batches := make(chan eventBatch, 2)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var planErr error // set before batches closes, read after the writers saw it closed
	go func() {
		defer close(batches)
		for !plan.done() {
			b, err := s.eventBatch(plan)
			if err != nil {
				planErr = err
				cancel()
				return
			}
			select {
			case batches <- b:
			case <-ctx.Done():
				return
			}
		}
	}()
	// Two writers, so that the database works on one batch while the other is encoded and sent.
	var written atomic.Int64
	writers, wctx := errgroup.WithContext(ctx)
	for range 2 {
		writers.Go(func() error {
			for b := range batches {
				if err := s.writeBatch(wctx, b); err != nil {
					cancel()
					return err
				}
				n := int64(len(b.events))
				if w := written.Add(n); w/(100*seedBatch) != (w-n)/(100*seedBatch) {
					log.Printf("  %d events", w)
				}
			}
			return nil
		})
	}
	if err := writers.Wait(); err != nil {
		return err
	}
	if planErr != nil {
		return planErr
	}
	log.Printf("  %d single events, %d occurrences of series (and their series records)", plan.made-plan.occurrences,
		plan.occurrences)
	start := time.Now()
	if err := s.store.RebuildKeptCounts(ctx); err != nil {
		return err
	}
	log.Printf("  rebuilt the kept counts in %s", time.Since(start).Round(time.Millisecond))
	return rebuild()
}

// writeBatch writes one batch in one transaction.
func (s *seeder) writeBatch(ctx context.Context, b eventBatch) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if tx.Dialector.Name() == models.Postgres {
			// The seeder need not wait for the disk on every batch: the data is re-creatable. And a replica
			// session fires no trigger: neither those that keep the list counts (rebuilt once after the load) nor
			// the change history's (a seeded calendar has no history to sync from), nor the foreign-key checks,
			// which PostgreSQL runs as triggers too (the batches are consistent by construction).
			if err := tx.Exec("SET LOCAL synchronous_commit = off").Error; err != nil {
				return err
			}
			if err := tx.Exec("SET LOCAL session_replication_role = replica").Error; err != nil {
				return fmt.Errorf("bypassing triggers needs a superuser (-pg): %w", err)
			}
		}
		for _, rows := range []any{&b.events, &b.series, &b.occurrences, &b.venues, &b.organizers, &b.cats, &b.tags, &b.pairs} {
			if reflect.ValueOf(rows).Elem().Len() == 0 {
				continue // a batch without series
			}
			if err := tx.Omit(clause.Associations).Create(rows).Error; err != nil {
				return err
			}
		}
		return nil
	})
}

// eventBatch makes the plan's next events with their links: about seedBatch of them (a series is never split
// between batches), single events and series interleaved as the plan says.
func (s *seeder) eventBatch(plan *seriesPlan) (eventBatch, error) {
	span := 3 * 365 * 24 * time.Hour
	from := s.now.Add(-365 * 24 * time.Hour)
	b := eventBatch{events: make([]models.Event, 0, seedBatch)}
	for len(b.events) < seedBatch && !plan.done() {
		start := from.Add(time.Duration(s.rng.Int64N(int64(span))).Truncate(15 * time.Minute))
		if !plan.seriesNext() {
			s.addEvent(&b, s.event(plan.takeID(), start), s.links())
			plan.made++
			continue
		}
		ser, err := s.series(plan, start)
		if err != nil {
			return b, err
		}
		s.addSeries(&b, ser)
		plan.made += len(ser.occurrences)
		plan.occurrences += len(ser.occurrences)
	}
	return b, nil
}

// addEvent adds an event with its links to the batch, and counts it for its categories and tags when published.
func (s *seeder) addEvent(b *eventBatch, e models.Event, l seededLinks) {
	for p, v := range l.venues {
		b.venues = append(b.venues, models.EventVenue{EventID: e.ID, VenueID: v, Position: p})
	}
	for p, o := range l.organizers {
		b.organizers = append(b.organizers, models.EventOrganizer{EventID: e.ID, OrganizerID: o, Position: p})
	}
	published := int64(0)
	if e.Status == models.StatusPublish {
		published = 1
	}
	for _, c := range l.categories {
		b.cats = append(b.cats, models.EventCategory{EventID: e.ID, CategoryID: c})
		s.categoryCounts[c] += published
	}
	for _, t := range l.tags {
		b.tags = append(b.tags, models.EventTag{EventID: e.ID, TagID: t})
		s.tagCounts[t] += published
	}
	b.pairs = append(b.pairs, models.EventVenueCategories(e.ID, l.venues, l.categories)...)
	e.SetLinkLists(l.venues, l.organizers, l.categories, l.tags)
	b.events = append(b.events, e)
}

// addSeries adds a series to the batch: its record (no links: they are its series row's lists), its series row,
// and its occurrences with their links and occurrence rows.
func (s *seeder) addSeries(b *eventBatch, ser seededSeries) {
	b.events = append(b.events, ser.record)
	b.series = append(b.series, ser.series)
	for _, o := range ser.occurrences {
		s.addEvent(b, o, ser.links)
	}
	b.occurrences = append(b.occurrences, ser.rows...)
}

// dropIndexes drops the indexes of tables that no constraint owns (PostgreSQL; SQLite keeps them) and returns
// the function that builds them again from their saved definitions.
func (s *seeder) dropIndexes(tables ...string) (rebuild func() error, err error) {
	if s.db.Dialector.Name() != models.Postgres {
		return func() error { return nil }, nil
	}
	var indexes []struct{ Name, Def string }
	err = s.db.Raw(`SELECT i.indexname AS name, i.indexdef AS def FROM pg_indexes i
		WHERE i.schemaname = current_schema() AND i.tablename IN ? AND NOT EXISTS
			(SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`, tables).Scan(&indexes).Error
	if err != nil {
		return nil, err
	}
	for _, ix := range indexes {
		if err := s.db.Exec(`DROP INDEX "` + ix.Name + `"`).Error; err != nil {
			return nil, err
		}
	}
	return func() error {
		start := time.Now()
		// Trigram (GIN) indexes take longest: they start first, and two connections build at once.
		sort.SliceStable(indexes, func(i, j int) bool {
			return strings.Contains(indexes[i].Def, "gin") && !strings.Contains(indexes[j].Def, "gin")
		})
		defs := make([]string, len(indexes))
		for i, ix := range indexes {
			defs[i] = ix.Def
		}
		err := twoAtATime(defs, func(def string) error {
			return s.db.Transaction(func(tx *gorm.DB) error {
				// A trigram index built in less memory merges its entries in more passes.
				if err := tx.Exec("SET LOCAL maintenance_work_mem = '1GB'").Error; err != nil {
					return err
				}
				return tx.Exec(def).Error
			})
		})
		if err != nil {
			return err
		}
		log.Printf("  rebuilt %d indexes in %s", len(indexes), time.Since(start).Round(time.Millisecond))
		return nil
	}, nil
}

// twoAtATime runs run for each statement, on two goroutines (and so two connections) at once, taking the statements
// in their order: the seeder's maintenance keeps both cores busy, as the load does.
func twoAtATime(statements []string, run func(string) error) error {
	queue := make(chan string, len(statements))
	for _, q := range statements {
		queue <- q
	}
	close(queue)
	var workers errgroup.Group
	for range 2 {
		workers.Go(func() error {
			for q := range queue {
				if err := run(q); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return workers.Wait()
}

// vacuumAnalyze vacuums and analyses every table of the database, largest first, two at a time. A fresh load has
// no visibility map: without VACUUM every index-only scan would visit the table too.
func (s *seeder) vacuumAnalyze() error {
	start := time.Now()
	var tables []string
	err := s.db.Raw(`SELECT relname FROM pg_stat_user_tables WHERE schemaname = current_schema()
		ORDER BY pg_total_relation_size(relid) DESC`).Scan(&tables).Error
	if err != nil {
		return err
	}
	statements := make([]string, len(tables))
	for i, t := range tables {
		statements[i] = `VACUUM ANALYZE "` + t + `"`
	}
	// VACUUM cannot run inside a transaction: each is a statement of its own.
	if err := twoAtATime(statements, func(q string) error { return s.db.Exec(q).Error }); err != nil {
		return err
	}
	log.Printf("  vacuumed %d tables in %s", len(tables), time.Since(start).Round(time.Millisecond))
	return nil
}

func (s *seeder) event(id uint64, start time.Time) models.Event {
	title := fmt.Sprintf("%s %s #%d", s.pick(adjectives), s.pick(titleWords), id)
	e := models.Event{ID: id, AuthorID: s.author, Status: models.StatusPublish, Title: title,
		Description: "<p>Join us for " + strings.ToLower(title) + ". " + s.words(15) + "</p>",
		Slug:        fmt.Sprintf("%s-%d", models.Slugify(title, "event"), id), Timezone: "UTC", TimezoneAbbr: "UTC",
		StartUTC: start, EndUTC: start.Add(time.Duration(1+s.rng.IntN(4)) * time.Hour),
		ShowMap: true, ShowMapLink: true, PublishedAt: start.Add(-30 * 24 * time.Hour)}
	e.CreatedAt, e.UpdatedAt = e.PublishedAt, e.PublishedAt
	if s.rng.IntN(3) == 0 {
		e.Cost = fmt.Sprintf(`["%d"]`, 5*s.rng.IntN(10))
	}
	switch r := s.rng.IntN(100); {
	case r < 4:
		e.Featured = true
	case r < 9:
		day := time.Date(start.Year(), start.Month(), start.Day(), 0, 0, 0, 0, time.UTC)
		e.AllDay, e.StartUTC, e.EndUTC = true, day, day.Add(24*time.Hour-time.Second)
	case r < 10:
		e.Password = seededPassword
	case r < 12:
		e.Status = models.StatusDraft
	}
	e.Ticketed = s.rng.IntN(5) == 0
	return e
}

// distinct returns k different IDs in 1..max.
func (s *seeder) distinct(k, max int) []uint64 {
	seen := map[uint64]bool{}
	out := make([]uint64, 0, k)
	for len(out) < k {
		id := uint64(1 + s.rng.IntN(max))
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// finish moves the PostgreSQL sequences past the explicit IDs, refreshes the planner statistics, stores the term
// counts counted while the events were made, and on PostgreSQL writes everything out (CHECKPOINT).
func (s *seeder) finish(store *models.Store) error {
	if store.Dialect() == models.Postgres {
		for _, table := range []string{"events", "venues", "organizers", "categories", "tags"} {
			q := fmt.Sprintf("SELECT setval(pg_get_serial_sequence('%s', 'id'), (SELECT max(id) FROM %s))", table, table)
			if err := s.db.Exec(q).Error; err != nil {
				return err
			}
		}
		if err := s.vacuumAnalyze(); err != nil {
			return err
		}
	}
	err := s.db.Transaction(func(tx *gorm.DB) error {
		for model, counts := range map[any]map[uint64]int64{&models.Category{}: s.categoryCounts, &models.Tag{}: s.tagCounts} {
			for id, n := range counts {
				if err := tx.Model(model).Where("id = ?", id).Update("count", n).Error; err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil || store.Dialect() != models.Postgres {
		return err
	}
	// The load leaves gigabytes of dirty pages: without a checkpoint now, writing them out competes with the
	// first scenarios for the two cores.
	start := time.Now()
	if err := s.db.Exec("CHECKPOINT").Error; err != nil {
		return err
	}
	log.Printf("  checkpoint in %s", time.Since(start).Round(time.Millisecond))
	return nil
}

// seededPassword is the stored password of the seeded protected events: derived once, since deriving it for each
// (the key derivation is deliberately slow) would only slow the seeding.
var seededPassword = models.HashRecordPassword("secret")
