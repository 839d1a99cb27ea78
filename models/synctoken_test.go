package models

import (
	"testing"
	"time"
)

// FuzzDecodeSyncToken proves that no input makes the token parser panic, and that nothing but a token signed with
// the key decodes: a token re-signed with another key, or any byte string, is refused.
func FuzzDecodeSyncToken(f *testing.F) {
	key := []byte("0123456789abcdef0123456789abcdef")
	until := SyncPosition{Snap: "100:105:101,103"}
	for _, tok := range []SyncToken{
		{From: SyncPosition{Seq: 42}, Minted: time.Unix(1700000000, 0)},
		{From: SyncPosition{Snap: "90:95:91"}, Until: &until, Minted: time.Unix(1700000000, 0)},
	} {
		f.Add(EncodeSyncToken(key, tok))
		f.Add(EncodeSyncToken([]byte("another key"), tok))
	}
	f.Add("")
	f.Add("AQ")
	f.Fuzz(func(t *testing.T, s string) {
		tok, err := DecodeSyncToken(key, s)
		if err != nil {
			return
		}
		if again := EncodeSyncToken(key, tok); again != s {
			t.Fatalf("%q decoded, but re-encodes as %q: a token other than the one signed was accepted", s, again)
		}
	})
}

// TestSyncTokenTamperedIsRefused flips every bit of a token in turn: none of the results decodes.
func TestSyncTokenTamperedIsRefused(t *testing.T) {
	key := []byte("k")
	s := EncodeSyncToken(key, SyncToken{From: SyncPosition{Seq: 7}, Minted: time.Unix(1700000000, 0)})
	tok, err := DecodeSyncToken(key, s)
	if err != nil || tok.From.Seq != 7 || tok.Until != nil || tok.Minted.Unix() != 1700000000 {
		t.Fatalf("round trip: %+v, %v", tok, err)
	}
	raw := []byte(s)
	for i := range raw {
		for _, c := range []byte("AZaz09-_") {
			if raw[i] == c {
				continue
			}
			mutated := append([]byte{}, raw...)
			mutated[i] = c
			if _, err := DecodeSyncToken(key, string(mutated)); err == nil {
				t.Fatalf("token with byte %d changed to %q decoded", i, c)
			}
		}
	}
}
