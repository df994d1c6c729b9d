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
	if st, err := os.Stat(filepath.Join(dir, DBFile)); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("state.db: %v %v", st.Mode(), err)
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

// TestMarkSlots: the mark survives a torn write of either slot (the other,
// older slot is read), and both slots damaged is an error.
func TestMarkSlots(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, MarkFile)
	m, err := openMark(p, true, Mark{Store: "00112233445566778899aabbccddeeff"})
	if err != nil {
		t.Fatal(err)
	}
	for seq := int64(1); seq <= 5; seq++ {
		if err := m.set(seq*10, 0, int(seq)); err != nil {
			t.Fatal(err)
		}
	}
	m.close()
	got, err := ReadMark(p)
	if err != nil || got.Seq != 50 || got.Store != "00112233445566778899aabbccddeeff" {
		t.Fatalf("mark %+v %v", got, err)
	}
	b, _ := os.ReadFile(p)
	// generation 5 is in slot 1; tear it: the mark falls back to 40
	torn := append([]byte(nil), b...)
	torn[slotSize+20] ^= 1
	os.WriteFile(p, torn, 0o600)
	if got, err := ReadMark(p); err != nil || got.Seq != 40 {
		t.Fatalf("torn newer slot: %+v %v", got, err)
	}
	torn[20] ^= 1
	os.WriteFile(p, torn, 0o600)
	if _, err := ReadMark(p); err == nil {
		t.Fatal("both slots damaged, no error")
	}
}

// TestAppendContinuesTheLog: records must continue the log; the mark
// follows the last one.
func TestAppendContinuesTheLog(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, "full")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Append([]Record{{Seq: 2, Kind: "tick", Data: []byte(`{}`)}}); err == nil {
		t.Fatal("a log starting at 2 was accepted")
	}
	if err := s.Append([]Record{{Seq: 1, Kind: "tick", Data: []byte(`{}`)}, {Seq: 3, Kind: "tick", Data: []byte(`{}`)}}); err == nil {
		t.Fatal("a gap was accepted")
	}
	if err := s.Append([]Record{{Seq: 1, Kind: "tick", Data: []byte(`{}`)}, {Seq: 2, Kind: "tick", Data: []byte(`{}`)}}); err != nil {
		t.Fatal(err)
	}
	if m, err := ReadMark(filepath.Join(dir, MarkFile)); err != nil || m.Seq != 2 {
		t.Fatalf("mark %+v %v", m, err)
	}
}

// BenchmarkAppend is one group commit of 4 records with synchronous=FULL,
// the high-water mark included; BenchmarkMarkSet is the mark's share (a
// 64-byte write and fdatasync).
func BenchmarkAppend(b *testing.B) {
	s, err := Open(b.TempDir(), "full")
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	data := make([]byte, 200)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := s.LastSeq()
		recs := []Record{{Seq: q + 1, Kind: "submit", Data: data}, {Seq: q + 2, Kind: "tick", Data: data}, {Seq: q + 3, Kind: "end", Data: data}, {Seq: q + 4, Kind: "tick", Data: data}}
		if err := s.Append(recs); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMarkSet(b *testing.B) {
	m, err := openMark(filepath.Join(b.TempDir(), MarkFile), true, Mark{Store: "00112233445566778899aabbccddeeff"})
	if err != nil {
		b.Fatal(err)
	}
	defer m.close()
	for i := 0; i < b.N; i++ {
		if err := m.set(int64(i), 0, i); err != nil {
			b.Fatal(err)
		}
	}
}
