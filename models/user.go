package models

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"gorm.io/gorm"
)

// Role is a WordPress-like user role.
type Role string

// The roles, from most to least powerful.
const (
	RoleAdministrator Role = "administrator"
	RoleEditor        Role = "editor"
	RoleAuthor        Role = "author"
	RoleContributor   Role = "contributor"
	RoleSubscriber    Role = "subscriber"
)

// Roles lists every role, most powerful first.
var Roles = []Role{RoleAdministrator, RoleEditor, RoleAuthor, RoleContributor, RoleSubscriber}

// ParseRole validates a role name.
func ParseRole(s string) (Role, error) {
	for _, r := range Roles {
		if string(r) == s {
			return r, nil
		}
	}
	names := make([]string, len(Roles))
	for i, r := range Roles {
		names[i] = string(r)
	}
	return "", fmt.Errorf("unknown role %q (one of %s)", s, strings.Join(names, ", "))
}

// User is someone who can authenticate with a token.
type User struct {
	ID        uint64    `gorm:"primaryKey"`
	Login     string    `gorm:"size:60;not null;uniqueIndex"`
	Name      string    `gorm:"size:250;not null;default:''"`
	Role      Role      `gorm:"size:20;not null"`
	CreatedAt time.Time `gorm:"not null"`

	Tokens []Token
}

// Token is an API credential. Only its SHA-256 hash is stored; the secret is shown once, when it is issued.
type Token struct {
	ID        uint64    `gorm:"primaryKey"`
	UserID    uint64    `gorm:"not null;index"`
	Hash      string    `gorm:"size:64;not null;uniqueIndex"`
	CreatedAt time.Time `gorm:"not null"`
	RevokedAt *time.Time

	User *User
}

// UserSummary is a user as `users list` shows it: never a token.
type UserSummary struct {
	Login        string
	Name         string
	Role         Role
	ActiveTokens int64
}

var loginPattern = regexp.MustCompile(`^[A-Za-z0-9._@-]{1,60}$`)

// newToken returns a fresh 256-bit secret and its hash.
func newToken() (secret, hash string, err error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", "", err
	}
	secret = base64.RawURLEncoding.EncodeToString(b)
	return secret, HashToken(secret), nil
}

// HashToken is how token secrets are stored and looked up.
func HashToken(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// CreateUser adds a user and issues its first token, returning the token's secret.
func (s *Store) CreateUser(ctx context.Context, login, name string, role Role) (string, error) {
	if !loginPattern.MatchString(login) {
		return "", fmt.Errorf("invalid login %q: use 1 to 60 letters, digits, '.', '_', '@' or '-'", login)
	}
	var secret string
	err := s.Tx(ctx, func(tx *Store) error {
		var n int64
		if err := tx.db.Model(&User{}).Where("login = ?", login).Count(&n).Error; err != nil {
			return err
		}
		if n > 0 {
			return fmt.Errorf("a user with login %q already exists", login)
		}
		u := User{Login: login, Name: name, Role: role, CreatedAt: now()}
		if err := tx.db.Create(&u).Error; err != nil {
			if errors.Is(err, gorm.ErrDuplicatedKey) {
				return fmt.Errorf("a user with login %q already exists", login)
			}
			return err
		}
		var err error
		secret, err = tx.issueToken(u.ID)
		return err
	})
	return secret, err
}

// IssueToken gives an existing user a further token and returns its secret.
func (s *Store) IssueToken(ctx context.Context, login string) (string, error) {
	u, err := s.userByLogin(ctx, login)
	if err != nil {
		return "", err
	}
	return s.WithContext(ctx).issueToken(u.ID)
}

func (s *Store) issueToken(userID uint64) (string, error) {
	secret, hash, err := newToken()
	if err != nil {
		return "", err
	}
	return secret, s.db.Create(&Token{UserID: userID, Hash: hash, CreatedAt: now()}).Error
}

// RevokeTokens revokes every active token of a user and returns how many there were.
func (s *Store) RevokeTokens(ctx context.Context, login string) (int64, error) {
	u, err := s.userByLogin(ctx, login)
	if err != nil {
		return 0, err
	}
	res := s.db.WithContext(ctx).Model(&Token{}).Where("user_id = ? AND revoked_at IS NULL", u.ID).Update("revoked_at", now())
	return res.RowsAffected, res.Error
}

// ListUsers returns every user with the number of active tokens, ordered by login.
func (s *Store) ListUsers(ctx context.Context) ([]UserSummary, error) {
	var out []UserSummary
	err := s.db.WithContext(ctx).Model(&User{}).
		Select("users.login, users.name, users.role, COUNT(tokens.id) AS active_tokens").
		Joins("LEFT JOIN tokens ON tokens.user_id = users.id AND tokens.revoked_at IS NULL").
		Group("users.id, users.login, users.name, users.role").Order("users.login").Scan(&out).Error
	return out, err
}

// Authenticate returns the user owning an active token. When login is not empty (HTTP Basic), it must be the
// token owner's login. A wrong, revoked or mismatched credential gives ErrNotFound.
func (s *Store) Authenticate(ctx context.Context, login, secret string) (*User, error) {
	if secret == "" || len(secret) > 512 {
		return nil, ErrNotFound
	}
	hash := HashToken(secret)
	var stored string
	var u User
	found, err := scanOne(s.db.WithContext(ctx).Raw(authenticateSQL, hash), &stored, &u.ID, &u.Login, &u.Name, &u.Role,
		&u.CreatedAt)
	if err != nil {
		return nil, err
	}
	// The lookup is by hash, so timing reveals nothing about the secret; compare the hash again in constant time
	// so that no database collation quirk can let a different secret through.
	if !found || subtle.ConstantTimeCompare([]byte(stored), []byte(hash)) != 1 {
		return nil, ErrNotFound
	}
	if login != "" && subtle.ConstantTimeCompare([]byte(u.Login), []byte(login)) != 1 {
		return nil, ErrNotFound
	}
	return &u, nil
}

// authenticateSQL reads an active token's hash and its user. Every authenticated request runs it, so it is scanned
// straight into its fields (scanOne), without GORM's reflection over the two models.
const authenticateSQL = `SELECT t.hash, u.id, u.login, u.name, u.role, u.created_at
	FROM tokens t JOIN users u ON u.id = t.user_id WHERE t.hash = ? AND t.revoked_at IS NULL LIMIT 1`

// UserByID returns a user, or ErrNotFound.
func (s *Store) UserByID(ctx context.Context, id uint64) (*User, error) {
	var u User
	err := s.db.WithContext(ctx).Take(&u, id).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, ErrNotFound
	}
	return &u, err
}

func (s *Store) userByLogin(ctx context.Context, login string) (*User, error) {
	var u User
	err := s.db.WithContext(ctx).Where("login = ?", login).Take(&u).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, fmt.Errorf("no user with login %q", login)
	}
	return &u, err
}

type userKey struct{}

// WithUser returns a context carrying the authenticated user.
func WithUser(ctx context.Context, u *User) context.Context {
	return context.WithValue(ctx, userKey{}, u)
}

// UserFrom returns the authenticated user of a request, or nil for anonymous callers.
func UserFrom(ctx context.Context) *User {
	u, _ := ctx.Value(userKey{}).(*User)
	return u
}

// now is the clock of every stored timestamp: UTC, whole seconds (the API shows seconds).
func now() time.Time { return time.Now().UTC().Truncate(time.Second) }
