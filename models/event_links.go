package models

import (
	"net/url"
	"path"
	"strings"

	"gorm.io/gorm/clause"
)

// maxExtensionLen is the width of images.extension.
const maxExtensionLen = 16

// ImageByID returns the image with id, or ErrNotFound.
func (s *Store) ImageByID(id uint64) (*Image, error) { return s.firstImage("id = ?", id) }

// ImageForURL returns the image recorded for rawURL, recording it on first use (nothing is downloaded; the
// extension is taken from the URL's path). Concurrent first uses of one URL end with one row.
func (s *Store) ImageForURL(rawURL string) (*Image, error) {
	img, err := s.imageByURL(rawURL)
	if err != ErrNotFound {
		return img, err
	}
	insert := Image{URL: rawURL, Extension: imageExtension(rawURL)}
	err = s.db.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "url"}}, DoNothing: true}).Create(&insert).Error
	if err != nil {
		return nil, err
	}
	return s.imageByURL(rawURL)
}

func (s *Store) imageByURL(rawURL string) (*Image, error) { return s.firstImage("url = ?", rawURL) }

func (s *Store) firstImage(cond string, arg any) (*Image, error) {
	var images []Image
	if err := s.db.Where(cond, arg).Limit(1).Find(&images).Error; err != nil {
		return nil, err
	}
	if len(images) == 0 {
		return nil, ErrNotFound
	}
	return &images[0], nil
}

// imageExtension is the lower-case extension of the URL's path ("png" for ".../a.PNG?x=1"), "" when it has none.
func imageExtension(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	ext := strings.ToLower(strings.TrimPrefix(path.Ext(u.Path), "."))
	if len(ext) > maxExtensionLen {
		return ""
	}
	return ext
}
