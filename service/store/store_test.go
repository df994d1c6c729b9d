package store

import (
	"os"
	"path/filepath"
	"testing"
)

func TestStore(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, "full")
	if err != nil {
		t.Fatal(err)
	}
	recs := []Record{{Seq: 1, Kind: "submit", T: 5, Data: []byte(`{"id":1}`)}, {Seq: 2, Kind: "tick", T: 5, Data: []byte(`{}`)}}
	if err := s.Append(recs); err != nil {
		t.Fatal(err)
	}
	if err := s.Append([]Record{{Seq: 2, Kind: "tick", T: 6, Data: []byte(`{}`)}}); err == nil {
		t.Fatal("a duplicate sequence number was accepted")
	}
	if err := s.SetMeta("policy", "easy"); err != nil {
		t.Fatal(err)
	}
	if err := s.PutUser(User{Name: "alice", TokenHash: "h1", PP: 0.5, Quota: 10}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutUser(User{Name: "bob", TokenHash: "h1"}); err == nil {
		t.Fatal("two users with one token")
	}
	s.Close()
	if _, err := os.Stat(filepath.Join(dir, "state.db-wal")); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	s, err = Open(dir, "normal")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var got []Record
	if err := s.Load(func(r Record) error { got = append(got, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[1].Kind != "tick" || string(got[0].Data) != `{"id":1}` {
		t.Fatalf("records %+v", got)
	}
	if v, ok, _ := s.Meta("policy"); !ok || v != "easy" {
		t.Fatalf("meta %q %v", v, ok)
	}
	us, _ := s.Users()
	if len(us) != 1 || us[0].PP != 0.5 || us[0].Quota != 10 {
		t.Fatalf("users %+v", us)
	}
	if ok, _ := s.DeleteUser("alice"); !ok {
		t.Fatal("delete")
	}
	if _, err := Open(t.TempDir(), "sometimes"); err == nil {
		t.Fatal("bad sync mode accepted")
	}
}
