package models

import "context"

// HasEvents tells whether the database holds any event at all, drafts and trashed ones included.
func (s *Store) HasEvents(ctx context.Context) (bool, error) {
	var found []int
	err := s.db.WithContext(ctx).Raw("SELECT 1 FROM events LIMIT 1").Scan(&found).Error
	return len(found) > 0, err
}
