package store

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
)

// The database's layout. Every value stored is sealed: a CRC-32C
// (Castagnoli) of the key and the payload, then the payload, so that a
// flipped byte in a key or a value — which bbolt does not detect: it
// checksums only its meta pages — is found when the entry is read.
// Integers in keys are big-endian, so that bbolt's byte order is their
// numeric order.
var (
	bEvents    = []byte("events")    // seq → kind, t, data
	bMeta      = []byte("meta")      // name → value
	bUsers     = []byte("users")     // name → id, token hash, admin, pp, quota, created
	bSnapshots = []byte("snapshots") // seq → t, sha256, data
	bArchive   = []byte("archive")   // id → user, key, state, end, data
	// the archive's indexes (derived: rebuilt from the archive when
	// damaged)
	bArchState = []byte("archive_state") // state 0 id → (nothing)
	bArchUser  = []byte("archive_user")  // user 0 id → state
	bArchKey   = []byte("archive_key")   // user 0 key → id

	buckets = [][]byte{bEvents, bMeta, bUsers, bSnapshots, bArchive, bArchState, bArchUser, bArchKey}
)

// formatVersion is the meta entry "format" of a database in this layout.
const formatVersion = "bbolt-1"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errChecksum is an entry whose CRC does not match its key and payload.
var errChecksum = errors.New("checksum mismatch")

// seal returns the stored form of payload under key.
func seal(key, payload []byte) []byte {
	out := make([]byte, 4, 4+len(payload))
	binary.BigEndian.PutUint32(out, crc32.Update(crc32.Checksum(key, castagnoli), castagnoli, payload))
	return append(out, payload...)
}

// unseal checks a stored value against its key and returns its payload
// (which aliases val: bbolt's memory, valid only in its transaction).
func unseal(key, val []byte) ([]byte, error) {
	if len(val) < 4 {
		return nil, errChecksum
	}
	p := val[4:]
	if binary.BigEndian.Uint32(val) != crc32.Update(crc32.Checksum(key, castagnoli), castagnoli, p) {
		return nil, errChecksum
	}
	return p, nil
}

// u64 is the key of a sequence number or a job id.
func u64(n int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(n)) }

func fromU64(k []byte) (int64, bool) {
	if len(k) != 8 {
		return 0, false
	}
	return int64(binary.BigEndian.Uint64(k)), true
}

// dec reads the fields of a payload; a short or malformed payload sets
// err (the CRC matched, so this is a bug or a foreign writer, not rot).
type dec struct {
	b   []byte
	err error
}

var errMalformed = errors.New("malformed entry")

func (d *dec) bytes() []byte {
	n, k := binary.Uvarint(d.b)
	if k <= 0 || uint64(len(d.b)-k) < n {
		d.err = errMalformed
		d.b = nil
		return nil
	}
	v := d.b[k : k+int(n)]
	d.b = d.b[k+int(n):]
	return v
}

func (d *dec) str() string { return string(d.bytes()) }

func (d *dec) int() int64 {
	v, k := binary.Varint(d.b)
	if k <= 0 {
		d.err = errMalformed
		d.b = nil
		return 0
	}
	d.b = d.b[k:]
	return v
}

func (d *dec) fixed(n int) []byte {
	if len(d.b) < n {
		d.err = errMalformed
		d.b = nil
		return nil
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}

// rest is the remaining bytes, copied.
func (d *dec) rest() []byte { return append([]byte(nil), d.b...) }

func putBytes(b, v []byte) []byte { return append(binary.AppendUvarint(b, uint64(len(v))), v...) }
func putStr(b []byte, v string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(v))), v...)
}

func encodeRecord(r Record) []byte {
	b := putStr(nil, r.Kind)
	b = binary.AppendVarint(b, r.T)
	return append(b, r.Data...)
}

func decodeRecord(k, v []byte) (Record, error) {
	seq, ok := fromU64(k)
	if !ok {
		return Record{}, errMalformed
	}
	p, err := unseal(k, v)
	if err != nil {
		return Record{Seq: seq}, err
	}
	d := dec{b: p}
	r := Record{Seq: seq, Kind: d.str(), T: d.int()}
	r.Data = d.rest()
	return r, d.err
}

func encodeUser(u User) []byte {
	b := binary.AppendVarint(nil, u.ID)
	b = putStr(b, u.TokenHash)
	a := int64(0)
	if u.Admin {
		a = 1
	}
	b = binary.AppendVarint(b, a)
	b = binary.BigEndian.AppendUint64(b, math.Float64bits(u.PP))
	b = binary.AppendVarint(b, u.Quota)
	return binary.AppendVarint(b, u.Created)
}

func decodeUser(k, v []byte) (User, error) {
	p, err := unseal(k, v)
	if err != nil {
		return User{Name: string(k)}, err
	}
	d := dec{b: p}
	u := User{Name: string(k), ID: d.int(), TokenHash: d.str(), Admin: d.int() != 0}
	if f := d.fixed(8); f != nil {
		u.PP = math.Float64frombits(binary.BigEndian.Uint64(f))
	}
	u.Quota, u.Created = d.int(), d.int()
	return u, d.err
}

func encodeSnapshot(s Snapshot) []byte {
	return encodeSnapshotHead(s.T, sha256.Sum256(s.Data), s.Data)
}

// encodeSnapshotHead is a snapshot's entry: its instant, the SHA-256 of
// all its bytes, and its first bytes (all of them, or the first
// SnapshotPart when the rest is in parts: store.SnapshotSave).
func encodeSnapshotHead(t int64, sum [32]byte, head []byte) []byte {
	b := binary.AppendVarint(nil, t)
	b = append(b, sum[:]...)
	return append(b, head...)
}

// decodeSnapshotHead decodes a snapshot's entry (its CRC checked): the
// snapshot with the entry's bytes (aliasing v), and the SHA-256 of all
// its bytes, parts included.
func decodeSnapshotHead(k, v []byte) (Snapshot, []byte, error) {
	seq, ok := fromU64(k)
	if !ok {
		return Snapshot{}, nil, errMalformed
	}
	p, err := unseal(k, v)
	if err != nil {
		return Snapshot{Seq: seq}, nil, err
	}
	d := dec{b: p}
	s := Snapshot{Seq: seq, T: d.int()}
	sum := d.fixed(32)
	if d.err != nil {
		return s, nil, d.err
	}
	s.Data = d.rest()
	return s, sum, nil
}

var errSHA = errors.New("SHA-256 mismatch")

func encodeArchived(a Archived) []byte {
	b := putStr(nil, a.User)
	b = putStr(b, a.Key)
	b = putStr(b, a.State)
	b = binary.AppendVarint(b, a.End)
	return append(b, a.Data...)
}

func decodeArchived(k, v []byte) (Archived, error) {
	id, ok := fromU64(k)
	if !ok {
		return Archived{}, errMalformed
	}
	p, err := unseal(k, v)
	if err != nil {
		return Archived{ID: id}, err
	}
	d := dec{b: p}
	a := Archived{ID: id, User: d.str(), Key: d.str(), State: d.str(), End: d.int()}
	a.Data = d.rest()
	return a, d.err
}

// index keys: a name (user names and states hold no NUL byte), a NUL,
// then an id or an idempotency key.
func ixKey(name string, rest []byte) []byte {
	b := make([]byte, 0, len(name)+1+len(rest))
	b = append(b, name...)
	b = append(b, 0)
	return append(b, rest...)
}
