package main

import (
	"context"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"calendar/models"
)

// dataset sizes of issue 8, apart from the number of events, which is a flag.
const (
	seedVenues     = 5000
	seedOrganizers = 2000
	seedTopCats    = 10 // each with 5 children: 60 categories
	seedChildCats  = 5
	seedTags       = 500
	seedBatch      = 2000
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
	rng    *rand.Rand
	now    time.Time
	author uint64
}

// seed writes the venues, organizers, categories, tags and n events, and the term counts.
func seed(ctx context.Context, store *models.Store, n int, authorID uint64) error {
	s := &seeder{db: store.DB().WithContext(ctx).Session(&gorm.Session{CreateBatchSize: seedBatch}),
		rng: rand.New(rand.NewPCG(42, 2026)), now: time.Now().UTC().Truncate(time.Second), author: authorID}
	if store.Dialect() == models.Postgres {
		// The seeding session need not wait for the disk on every batch; the data is re-creatable.
		if err := s.db.Exec("SET synchronous_commit = off").Error; err != nil {
			return err
		}
	}
	steps := []struct {
		name string
		fn   func() error
	}{
		{"venues", s.venues}, {"organizers", s.organizers}, {"categories", s.categories}, {"tags", s.tags},
		{"events", func() error { return s.events(n) }}, {"sequences and counts", func() error { return s.finish(store) }},
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

// events writes n events spread over three years (one year back, two ahead), each with 1 venue, 1–3
// organizers, 1–3 categories and 0–4 tags, in batches so memory stays bounded.
func (s *seeder) events(n int) error {
	span := 3 * 365 * 24 * time.Hour
	first := s.now.Add(-365 * 24 * time.Hour)
	for start := 1; start <= n; start += seedBatch {
		end := min(start+seedBatch-1, n)
		events := make([]models.Event, 0, end-start+1)
		var venues []models.EventVenue
		var organizers []models.EventOrganizer
		var cats []models.EventCategory
		var tags []models.EventTag
		for id := start; id <= end; id++ {
			e := s.event(uint64(id), first.Add(time.Duration(s.rng.Int64N(int64(span))).Truncate(15*time.Minute)))
			events = append(events, e)
			venues = append(venues, models.EventVenue{EventID: e.ID, VenueID: uint64(1 + s.rng.IntN(seedVenues))})
			for p, o := range s.distinct(1+s.rng.IntN(3), seedOrganizers) {
				organizers = append(organizers, models.EventOrganizer{EventID: e.ID, OrganizerID: o, Position: p})
			}
			for _, c := range s.distinct(1+s.rng.IntN(3), seedTopCats*(seedChildCats+1)) {
				cats = append(cats, models.EventCategory{EventID: e.ID, CategoryID: c})
			}
			for _, t := range s.distinct(s.rng.IntN(5), seedTags) {
				tags = append(tags, models.EventTag{EventID: e.ID, TagID: t})
			}
		}
		err := s.db.Transaction(func(tx *gorm.DB) error {
			for _, rows := range []any{&events, &venues, &organizers, &cats, &tags} {
				if err := tx.Omit(clause.Associations).CreateInBatches(rows, seedBatch).Error; err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		if start%(100*seedBatch) == 1 && start > 1 {
			log.Printf("  %d events", start-1)
		}
	}
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
		e.Password = models.HashEventPassword("secret")
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

// finish moves the PostgreSQL sequences past the explicit IDs and computes the term counts.
func (s *seeder) finish(store *models.Store) error {
	if store.Dialect() == models.Postgres {
		for _, table := range []string{"events", "venues", "organizers", "categories", "tags"} {
			q := fmt.Sprintf("SELECT setval(pg_get_serial_sequence('%s', 'id'), (SELECT max(id) FROM %s))", table, table)
			if err := s.db.Exec(q).Error; err != nil {
				return err
			}
		}
		if err := s.db.Exec("ANALYZE").Error; err != nil {
			return err
		}
	}
	var categories, tags []uint64
	if err := s.db.Model(&models.Category{}).Pluck("id", &categories).Error; err != nil {
		return err
	}
	if err := s.db.Model(&models.Tag{}).Pluck("id", &tags).Error; err != nil {
		return err
	}
	if err := store.RecountCategories(categories); err != nil {
		return err
	}
	if err := store.RecountTags(tags); err != nil {
		return err
	}
	return nil
}
