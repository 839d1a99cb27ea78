package models

import (
	"context"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/pressly/goose/v3"
)

// Record passwords (of events, venues and organizers) are stored one way: PBKDF2-HMAC-SHA256 of the password with
// a random 16-byte salt, written "pbkdf2-sha256$ITERATIONS$SALT$KEY" (salt and key in unpadded base64), so a
// database dump gives away neither the passwords nor which records share one. PBKDF2 (Go's crypto/pbkdf2) is
// used rather than a memory-hard function because a password is checked on reads: recordPasswordIterations keeps
// a check near a millisecond, and the attempt limits of the API bound guessing through it.
//
// Event passwords stored before were unsalted SHA-256 digests ("sha256:HEX"); migration 16 wrapped each in the
// format above with the marker "pbkdf2-sha256-over-sha256", whose key is derived from that digest, so they keep
// working without the passwords being known.
const (
	recordPasswordScheme        = "pbkdf2-sha256"
	recordPasswordWrappedScheme = "pbkdf2-sha256-over-sha256"
	recordPasswordIterations    = 4096
	recordPasswordSaltBytes     = 16
	recordPasswordKeyBytes      = 32
)

// HashRecordPassword is how a record password is stored; "" (no password) stays "".
func HashRecordPassword(pw string) string {
	if pw == "" {
		return ""
	}
	return deriveRecordPassword(recordPasswordScheme, pw)
}

func deriveRecordPassword(scheme, secret string) string {
	salt := make([]byte, recordPasswordSaltBytes)
	_, _ = rand.Read(salt)
	key, err := pbkdf2.Key(sha256.New, secret, salt, recordPasswordIterations, recordPasswordKeyBytes)
	if err != nil {
		panic(err) // only for parameters outside what FIPS mode allows, which these are not
	}
	return scheme + "$" + strconv.Itoa(recordPasswordIterations) + "$" + base64.RawStdEncoding.EncodeToString(salt) +
		"$" + base64.RawStdEncoding.EncodeToString(key)
}

// RecordPasswordMatches tells whether pw is the password stored (as HashRecordPassword wrote it), comparing the
// derived keys in constant time. A record without a password, or an empty pw, matches nothing.
func RecordPasswordMatches(stored, pw string) bool {
	if stored == "" || pw == "" {
		return false
	}
	parts := strings.Split(stored, "$")
	if len(parts) != 4 {
		return false
	}
	secret := pw
	switch parts[0] {
	case recordPasswordScheme:
	case recordPasswordWrappedScheme:
		secret = legacyEventPassword(pw)
	default:
		return false
	}
	iterations, err := strconv.Atoi(parts[1])
	if err != nil || iterations < 1 || iterations > 10*recordPasswordIterations {
		return false
	}
	salt, err1 := base64.RawStdEncoding.DecodeString(parts[2])
	want, err2 := base64.RawStdEncoding.DecodeString(parts[3])
	if err1 != nil || err2 != nil || len(want) == 0 {
		return false
	}
	got, err := pbkdf2.Key(sha256.New, secret, salt, iterations, len(want))
	return err == nil && subtle.ConstantTimeCompare(got, want) == 1
}

// legacyEventPassword is how event passwords were stored before they were salted.
func legacyEventPassword(pw string) string {
	sum := sha256.Sum256([]byte(pw))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// saltRecordPasswords is migration 16 on a database of dialect: every record password stored another way is
// stored as HashRecordPassword says. Event passwords were SHA-256 digests, which are wrapped; venue and organizer
// passwords were stored as given, which are derived directly. Only protected records are read and written.
func saltRecordPasswords(dialect string) *goose.Migration {
	return goose.NewGoMigration(16, &goose.GoFunc{RunTx: func(ctx context.Context, tx *sql.Tx) error {
		for _, table := range []string{"events", "venues", "organizers"} {
			if err := saltPasswordsOf(ctx, tx, dialect, table); err != nil {
				return fmt.Errorf("%s: %w", table, err)
			}
		}
		return nil
	}}, nil)
}

func saltPasswordsOf(ctx context.Context, tx *sql.Tx, dialect, table string) error {
	rows, err := tx.QueryContext(ctx, "SELECT id, password FROM "+table+" WHERE password <> ''")
	if err != nil {
		return err
	}
	type row struct {
		id       int64
		password string
	}
	var pending []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, &r.password); err != nil {
			_ = rows.Close()
			return err
		}
		if !strings.HasPrefix(r.password, recordPasswordScheme+"$") && !strings.HasPrefix(r.password, recordPasswordWrappedScheme+"$") {
			pending = append(pending, r)
		}
	}
	if err := rows.Close(); err != nil {
		return err
	}
	if err := rows.Err(); err != nil {
		return err
	}
	update := "UPDATE " + table + " SET password = ? WHERE id = ?"
	if dialect == Postgres {
		update = "UPDATE " + table + " SET password = $1 WHERE id = $2"
	}
	for _, r := range pending {
		stored := HashRecordPassword(r.password)
		if table == "events" && strings.HasPrefix(r.password, "sha256:") {
			stored = deriveRecordPassword(recordPasswordWrappedScheme, r.password)
		}
		if _, err := tx.ExecContext(ctx, update, stored, r.id); err != nil {
			return err
		}
	}
	return nil
}
