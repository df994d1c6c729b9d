package store

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"
)

func appendN(t *testing.T, s *Store, from, to int64) {
	t.Helper()
	var recs []Record
	for q := from; q <= to; q++ {
		recs = append(recs, Record{Seq: q, Kind: "tick", T: q, Data: []byte(fmt.Sprint(q))})
	}
	if err := s.Append(recs); err != nil {
		t.Fatal(err)
	}
}

func loaded(t *testing.T, s *Store) []int64 {
	t.Helper()
	var got []int64
	if err := s.Load(func(r Record) error { got = append(got, r.Seq); return nil }); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestSnapshotsCompactAndFallBack: a snapshot cuts the log behind the
// previous one; a restart loads the latest snapshot and the log after it;
// a damaged latest snapshot falls back to the previous one and its log;
// both damaged is refused. Archived jobs stay queryable.
func TestSnapshotsCompactAndFallBack(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, "normal")
	if err != nil {
		t.Fatal(err)
	}
	appendN(t, s, 1, 10)
	if err := s.SaveSnapshot(Snapshot{Seq: 11, T: 11, Data: []byte("x")}, nil); err == nil {
		t.Fatal("a snapshot beyond the log's end was accepted")
	}
	arch := []Archived{{ID: 1, User: "alice", Key: "k1", State: "completed", End: 5, Data: []byte(`{"id":1}`)},
		{ID: 2, User: "bob", State: "cancelled", End: 6, Data: []byte(`{"id":2}`)}}
	if err := s.SaveSnapshot(Snapshot{Seq: 10, T: 10, Data: []byte("state@10")}, arch); err != nil {
		t.Fatal(err)
	}
	appendN(t, s, 11, 17)
	// behind the log's end (the service commits on while a snapshot is
	// encoded): the records after it stay
	if err := s.SaveSnapshot(Snapshot{Seq: 15, T: 15, Data: []byte("state@15")}, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveSnapshot(Snapshot{Seq: 12, T: 12, Data: []byte("x")}, nil); err == nil {
		t.Fatal("a snapshot before the previous one was accepted")
	}
	appendN(t, s, 18, 20)
	n, _ := s.Count()
	if n != 10 { // 11..20: the log behind the previous snapshot (10) is gone
		t.Fatalf("%d records kept, want 10", n)
	}
	s.Close()

	s, err = Open(dir, "normal")
	if err != nil {
		t.Fatal(err)
	}
	snap, ok, err := s.LatestSnapshot()
	if err != nil || !ok || snap.Seq != 15 || string(snap.Data) != "state@15" {
		t.Fatalf("latest snapshot %+v %v %v", snap, ok, err)
	}
	if got := loaded(t, s); len(got) != 5 || got[0] != 16 {
		t.Fatalf("log after the snapshot: %v", got)
	}
	if a, ok, _ := s.ArchivedByKey("alice", "k1"); !ok || a.ID != 1 {
		t.Fatalf("archived by key: %+v %v", a, ok)
	}
	var ids []int64
	s.ArchivedJobs(ArchiveQuery{State: "cancelled"}, func(a Archived) error { ids = append(ids, a.ID); return nil })
	if len(ids) != 1 || ids[0] != 2 {
		t.Fatalf("archived cancelled: %v", ids)
	}
	s.Close()

	// damage the latest snapshot: the previous one and its log serve
	damage := func(seq int) {
		tamper(t, dir, func(tx *bolt.Tx) error {
			b := tx.Bucket(bSnapshots)
			k := u64(int64(seq))
			v := append([]byte(nil), b.Get(k)...)
			v[len(v)-1] ^= 1
			return b.Put(k, v)
		})
	}
	damage(15)
	s, err = Open(dir, "normal")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Notes) == 0 {
		t.Error("no note about the damaged snapshot")
	}
	snap, ok, _ = s.LatestSnapshot()
	if !ok || snap.Seq != 10 {
		t.Fatalf("fallback snapshot %+v", snap)
	}
	if got := loaded(t, s); len(got) != 10 || got[0] != 11 || got[9] != 20 {
		t.Fatalf("log after the fallback: %v", got)
	}
	// a new snapshot after the fallback drops the damaged one, keeps 10
	appendN(t, s, 21, 22)
	if err := s.SaveSnapshot(Snapshot{Seq: 22, T: 22, Data: []byte("state@22")}, nil); err != nil {
		t.Fatal(err)
	}
	var seqs []int64
	s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bSnapshots).ForEach(func(k, _ []byte) error {
			q, _ := fromU64(k)
			seqs = append(seqs, q)
			return nil
		})
	})
	if len(seqs) != 2 || seqs[0] != 10 || seqs[1] != 22 {
		t.Fatalf("snapshots kept: %v", seqs)
	}
	s.Close()
	damage(22)
	damage(10)
	_, err = Open(dir, "normal")
	var ie *IntegrityError
	if !errors.As(err, &ie) || ie.CanAccept {
		t.Fatalf("both snapshots damaged: %v", err)
	}
}

// tamper changes the database in dir behind the store's back (it must
// not be open), leaving its checksums as they come out.
func tamper(t *testing.T, dir string, fn func(tx *bolt.Tx) error) {
	t.Helper()
	db, err := bolt.Open(filepath.Join(dir, DBFile), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(fn); err != nil {
		t.Fatal(err)
	}
}

// TestSnapshotInParts: a snapshot larger than SnapshotPart is saved in
// several transactions with log commits between them, and read back
// whole; a save cut short (a crash between its parts) leaves no snapshot
// — the previous one serves, nothing is reported damaged — and the next
// snapshot deletes its parts; a damaged part makes the snapshot damaged,
// so the older one serves.
func TestSnapshotInParts(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, "normal")
	if err != nil {
		t.Fatal(err)
	}
	big := func(seed byte) []byte {
		b := make([]byte, 2*SnapshotPart+1234)
		for i := range b {
			b[i] = seed + byte(i%251)
		}
		return b
	}
	appendN(t, s, 1, 10)
	w := s.BeginSnapshot(Snapshot{Seq: 10, T: 10, Data: big(1)}, nil)
	steps := 0
	for q := int64(11); ; q++ {
		done, err := w.Step()
		if err != nil {
			t.Fatal(err)
		}
		steps++
		if done {
			break
		}
		appendN(t, s, q, q) // a commit between two parts
	}
	if steps != 3 {
		t.Fatalf("%d steps for 3 parts", steps)
	}
	last := s.LastSeq()
	// cut short: the parts of a snapshot at the log's end, not its entry
	w = s.BeginSnapshot(Snapshot{Seq: last, T: last, Data: big(2)}, nil)
	if done, err := w.Step(); done || err != nil {
		t.Fatalf("first part: done %v, %v", done, err)
	}
	s.Close()

	s, err = Open(dir, "normal")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Notes) != 0 {
		t.Errorf("notes after a snapshot cut short: %v", s.Notes)
	}
	snap, ok, err := s.LatestSnapshot()
	if err != nil || !ok || snap.Seq != 10 || !bytes.Equal(snap.Data, big(1)) {
		t.Fatalf("latest snapshot %d (%d bytes) %v %v", snap.Seq, len(snap.Data), ok, err)
	}
	if got := loaded(t, s); len(got) != int(last-10) || got[0] != 11 {
		t.Fatalf("log after the snapshot: %v", got)
	}
	appendN(t, s, last+1, last+3)
	if err := s.SaveSnapshot(Snapshot{Seq: last + 3, T: last + 3, Data: big(3)}, nil); err != nil {
		t.Fatal(err)
	}
	keys := 0
	s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bSnapshots).ForEach(func(k, _ []byte) error {
			if n, _ := fromU64(k[:8]); n != 10 && n != last+3 {
				t.Errorf("an entry of the snapshots bucket of no snapshot kept: %x", k)
			}
			keys++
			return nil
		})
	})
	if keys != 6 { // two snapshots of three parts each
		t.Errorf("%d entries in the snapshots bucket, want 6", keys)
	}
	s.Close()

	// a damaged part: the snapshot is damaged, the older one serves
	tamper(t, dir, func(tx *bolt.Tx) error {
		b := tx.Bucket(bSnapshots)
		k := partKey(last+3, 2)
		v := append([]byte(nil), b.Get(k)...)
		v[len(v)-1] ^= 1
		return b.Put(k, v)
	})
	s, err = Open(dir, "normal")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if len(s.Notes) == 0 {
		t.Error("no note about the damaged snapshot")
	}
	if snap, ok, _ := s.LatestSnapshot(); !ok || snap.Seq != 10 || !bytes.Equal(snap.Data, big(1)) {
		t.Fatalf("fallback snapshot %d", snap.Seq)
	}
}
