package models

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"strings"
	"time"
)

// SyncToken is what a sync_token carries: the position a list answered at (From), when it was handed out, and,
// in the links between the pages of one sync, the position that sync answers up to (Until), so that every page
// of it lists the same changes whatever is written meanwhile.
type SyncToken struct {
	From   SyncPosition
	Until  *SyncPosition
	Minted time.Time
	// UntilMinted is when Until was read: every page of one sync hands out the same next token.
	UntilMinted time.Time
}

// ErrBadSyncToken is what DecodeSyncToken answers for a token it did not sign with the same key: forged,
// tampered with, cut short, or from another database.
var ErrBadSyncToken = errors.New("models: not a sync token of this service")

// syncTokenVersion is the first byte of every token, so that a later format can tell old tokens apart.
const syncTokenVersion = 1

// syncTokenMAC is how many bytes of HMAC-SHA256 a token carries: 128 bits cannot be guessed.
const syncTokenMAC = 16

// maxSyncToken bounds the length of a token the decoder looks at (a PostgreSQL snapshot lists the transactions
// in flight, a few dozen at most).
const maxSyncToken = 8192

// EncodeSyncToken serialises t and signs it with key: base64url of a version byte, the fields, and a MAC.
func EncodeSyncToken(key []byte, t SyncToken) string {
	buf := []byte{syncTokenVersion}
	buf = binary.AppendVarint(buf, t.Minted.Unix())
	buf = appendPosition(buf, t.From)
	if t.Until != nil {
		buf = append(buf, 1)
		buf = appendPosition(buf, *t.Until)
		buf = binary.AppendVarint(buf, t.UntilMinted.Unix())
	} else {
		buf = append(buf, 0)
	}
	mac := hmac.New(sha256.New, key)
	mac.Write(buf)
	buf = mac.Sum(buf)[:len(buf)+syncTokenMAC]
	return base64.RawURLEncoding.EncodeToString(buf)
}

func appendPosition(buf []byte, p SyncPosition) []byte {
	buf = binary.AppendVarint(buf, p.Seq)
	buf = binary.AppendUvarint(buf, uint64(len(p.Snap)))
	return append(buf, p.Snap...)
}

// DecodeSyncToken checks s's signature with key and returns what it carries, or ErrBadSyncToken.
func DecodeSyncToken(key []byte, s string) (SyncToken, error) {
	var t SyncToken
	if len(s) > maxSyncToken || strings.IndexFunc(s, notTokenChar) >= 0 {
		return t, ErrBadSyncToken
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil || len(raw) < 1+syncTokenMAC || raw[0] != syncTokenVersion {
		return t, ErrBadSyncToken
	}
	body, sum := raw[:len(raw)-syncTokenMAC], raw[len(raw)-syncTokenMAC:]
	mac := hmac.New(sha256.New, key)
	mac.Write(body)
	if !hmac.Equal(mac.Sum(nil)[:syncTokenMAC], sum) {
		return t, ErrBadSyncToken
	}
	d := decoder{buf: body[1:]}
	t.Minted = time.Unix(d.varint(), 0).UTC()
	t.From = d.position()
	if d.byte() == 1 {
		until := d.position()
		t.Until = &until
		t.UntilMinted = time.Unix(d.varint(), 0).UTC()
	}
	if d.bad || len(d.buf) != 0 {
		return SyncToken{}, ErrBadSyncToken
	}
	return t, nil
}

// notTokenChar is true for a character base64url does not use (the decoder would skip line breaks).
func notTokenChar(r rune) bool {
	return !('A' <= r && r <= 'Z' || 'a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '-' || r == '_')
}

// decoder reads a token's fields, remembering whether any was cut short.
type decoder struct {
	buf []byte
	bad bool
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.buf)
	if n <= 0 {
		d.bad, d.buf = true, nil
		return 0
	}
	d.buf = d.buf[n:]
	return v
}

func (d *decoder) byte() byte {
	if len(d.buf) == 0 {
		d.bad = true
		return 0
	}
	b := d.buf[0]
	d.buf = d.buf[1:]
	return b
}

func (d *decoder) position() SyncPosition {
	var p SyncPosition
	p.Seq = d.varint()
	n, k := binary.Uvarint(d.buf)
	if k <= 0 || n > uint64(len(d.buf)-k) {
		d.bad, d.buf = true, nil
		return p
	}
	p.Snap = string(d.buf[k : k+int(n)])
	d.buf = d.buf[k+int(n):]
	return p
}
