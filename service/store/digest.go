package store

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"

	bolt "go.etcd.io/bbolt"
)

// Digests. A checksum per entry finds a changed entry, not a missing
// one: a damaged page header can make bbolt see fewer entries, each
// whole. So the bucket "digests" keeps, for every bucket, its number of
// entries and the sum (mod 2^64) of a 64-bit hash of each entry's key
// and value (entryHash), updated in the transaction of every write (put, del);
// Inspect recomputes both and compares.

var bDigests = []byte("digests")

type digest struct {
	n   int64
	sum uint64
}

// entryHash is a 64-bit hash of an entry: the CRC-32C (hardware
// accelerated) of uvarint(len(k)) and k, then of all that and v.
func entryHash(k, v []byte) uint64 {
	var n [binary.MaxVarintLen64]byte
	hk := crc32.Update(crc32.Checksum(n[:binary.PutUvarint(n[:], uint64(len(k)))], castagnoli), castagnoli, k)
	return uint64(hk)<<32 | uint64(crc32.Update(hk, castagnoli, v))
}

func (d *digest) add(k, v []byte) { d.n++; d.sum += entryHash(k, v) }

func readDigest(tx *bolt.Tx, bucket []byte) (digest, error) {
	v := tx.Bucket(bDigests).Get(bucket)
	if v == nil {
		return digest{}, nil
	}
	p, err := unseal(bucket, v)
	if err != nil || len(p) != 16 {
		return digest{}, fmt.Errorf("the digest of %s: %w", bucket, errChecksum)
	}
	return digest{int64(binary.BigEndian.Uint64(p)), binary.BigEndian.Uint64(p[8:])}, nil
}

func writeDigest(tx *bolt.Tx, bucket []byte, d digest) error {
	p := binary.BigEndian.AppendUint64(nil, uint64(d.n))
	p = binary.BigEndian.AppendUint64(p, d.sum)
	return tx.Bucket(bDigests).Put(bucket, seal(bucket, p))
}

func adjust(tx *bolt.Tx, bucket []byte, dn int64, dsum uint64) error {
	d, err := readDigest(tx, bucket)
	if err != nil {
		return err
	}
	d.n += dn
	d.sum += dsum
	return writeDigest(tx, bucket, d)
}

// put sets key k of bucket to the sealed value v, keeping its digest.
func put(tx *bolt.Tx, bucket, k, v []byte) error {
	b := tx.Bucket(bucket)
	if old := b.Get(k); old != nil {
		if err := adjust(tx, bucket, -1, -entryHash(k, old)); err != nil {
			return err
		}
	}
	if err := b.Put(k, v); err != nil {
		return err
	}
	return adjust(tx, bucket, 1, entryHash(k, v))
}

// del deletes key k of bucket, keeping its digest.
func del(tx *bolt.Tx, bucket, k []byte) error {
	b := tx.Bucket(bucket)
	old := b.Get(k)
	if old == nil {
		return nil
	}
	h := entryHash(k, old)
	if err := b.Delete(k); err != nil {
		return err
	}
	return adjust(tx, bucket, -1, -h)
}

// recomputeDigests sets every bucket's digest to what it holds.
func recomputeDigests(tx *bolt.Tx) error {
	for _, name := range buckets {
		var d digest
		if err := tx.Bucket(name).ForEach(func(k, v []byte) error { d.add(k, v); return nil }); err != nil {
			return err
		}
		if err := writeDigest(tx, name, d); err != nil {
			return err
		}
	}
	return nil
}
