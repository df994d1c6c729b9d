package store

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sync"
	"syscall"
	"time"
)

// The high-water mark: the highest record sequence number the store has
// committed, kept in its own small file (MarkFile) beside the database,
// outside the database, so that a log that lost records (records deleted,
// a damaged page, the last transactions lost to a damaged meta page or a
// power loss with --sync normal, an older copy of state.db put back) is
// detected at the next start instead of being replayed as if it were
// complete. It also holds the last bbolt transaction's id, so that a lost
// transaction that held no record (a user created) is detected too.
//
// The file holds two 64-byte slots written alternately; each carries a
// generation number and a CRC-32, and the valid slot with the highest
// generation is the mark, so a write torn by a crash leaves the previous
// mark readable. With sync full the slot is written after each commit,
// before the service answers, and fdatasync'ed in the background (see
// set); with normal it is left to the operating system, like the database
// itself.

// MarkFile is the name of the high-water mark file in a state directory.
const MarkFile = "state.mark"

const (
	markMagic   = "BFMK"
	markVersion = 3 // 1: without JobID; 2: without TxID
	slotSize    = 64
)

// Mark is the content of the high-water mark file.
type Mark struct {
	// Store is the random identity of the database the mark belongs to
	// (its meta row store_id), so that a database from elsewhere is not
	// taken for this one.
	Store string
	// Seq is the highest record sequence number committed.
	Seq int64
	// Time is when it was written (Unix seconds, wall clock).
	Time int64
	// JobID is the highest job id acknowledged (submit records), so that
	// ids are never given again after a loss is accepted. A mark of
	// version 1 has none: its Seq bounds it (each submission is a record).
	JobID int64
	// TxID is the low 32 bits of the last bbolt transaction committed
	// (any write: records, users, settings, snapshots), so that a
	// database that lost its last transactions (a damaged meta page makes
	// bbolt use the previous one) is detected even when they held no
	// record. 0 in marks of versions 1 and 2 (unknown).
	TxID uint32
	gen  uint64
}

type markFile struct {
	f    *os.File
	sync bool
	cur  Mark

	// with sync, a goroutine fdatasyncs the file after writes (kick),
	// off the commit's path; err is the first failure, returned by the
	// next set
	kick chan struct{}
	done chan struct{}
	mu   sync.Mutex
	err  error
}

func encodeSlot(m Mark) []byte {
	b := make([]byte, slotSize)
	copy(b[0:4], markMagic)
	binary.LittleEndian.PutUint32(b[4:8], markVersion)
	binary.LittleEndian.PutUint64(b[8:16], m.gen)
	binary.LittleEndian.PutUint64(b[16:24], uint64(m.Seq))
	binary.LittleEndian.PutUint64(b[24:32], uint64(m.Time))
	id, _ := hex.DecodeString(m.Store)
	copy(b[32:48], id)
	binary.LittleEndian.PutUint64(b[48:56], uint64(m.JobID))
	binary.LittleEndian.PutUint32(b[56:60], m.TxID)
	binary.LittleEndian.PutUint32(b[60:64], crc32.ChecksumIEEE(b[0:60]))
	return b
}

func decodeSlot(b []byte) (Mark, bool) {
	if len(b) < slotSize || string(b[0:4]) != markMagic {
		return Mark{}, false
	}
	m := Mark{gen: binary.LittleEndian.Uint64(b[8:16]), Seq: int64(binary.LittleEndian.Uint64(b[16:24])),
		Time: int64(binary.LittleEndian.Uint64(b[24:32])), Store: hex.EncodeToString(b[32:48])}
	switch binary.LittleEndian.Uint32(b[4:8]) {
	case 1:
		if crc32.ChecksumIEEE(b[0:48]) != binary.LittleEndian.Uint32(b[48:52]) {
			return Mark{}, false
		}
		m.JobID = m.Seq // each submission is one record: ids ≤ records
	case 2:
		if crc32.ChecksumIEEE(b[0:56]) != binary.LittleEndian.Uint32(b[56:60]) {
			return Mark{}, false
		}
		m.JobID = int64(binary.LittleEndian.Uint64(b[48:56]))
	case markVersion:
		if crc32.ChecksumIEEE(b[0:60]) != binary.LittleEndian.Uint32(b[60:64]) {
			return Mark{}, false
		}
		m.JobID = int64(binary.LittleEndian.Uint64(b[48:56]))
		m.TxID = binary.LittleEndian.Uint32(b[56:60])
	default:
		return Mark{}, false
	}
	return m, true
}

// ReadMark reads the mark file at path. It reports os.ErrNotExist when
// there is none, and an error when neither slot is valid.
func ReadMark(path string) (Mark, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Mark{}, err
	}
	var best Mark
	found := false
	for off := 0; off+slotSize <= len(b) && off < 2*slotSize; off += slotSize {
		if m, ok := decodeSlot(b[off : off+slotSize]); ok && (!found || m.gen > best.gen) {
			best, found = m, true
		}
	}
	if !found {
		return Mark{}, fmt.Errorf("%s: no valid high-water mark (%d bytes, both slots damaged)", path, len(b))
	}
	return best, nil
}

// openMark opens (creating if needed) the mark file for writing; with
// sync, its writes are fdatasynced in the background (set).
func openMark(path string, sync bool, cur Mark) (*markFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, err
	}
	m := &markFile{f: f, sync: sync, cur: cur}
	if sync {
		m.kick, m.done = make(chan struct{}, 1), make(chan struct{})
		go m.syncer()
	}
	return m, nil
}

func (m *markFile) syncer() {
	defer close(m.done)
	for range m.kick {
		if err := m.f.Sync(); err != nil {
			m.mu.Lock()
			if m.err == nil {
				m.err = fmt.Errorf("store: syncing the high-water mark: %w", err)
			}
			m.mu.Unlock()
		}
	}
}

// set writes seq and the transaction txid as the new mark, with jobID if
// higher than the mark's, into the slot not holding the current one; in
// full sync mode it has the write fdatasynced in the background.
//
// Why not wait for that fdatasync (as the store did with SQLite): the
// database's commit is already on disk when set is called, so a crash of
// the machine cannot lose a record the service acknowledged; the mark can
// only lag behind the database then (which Open accepts), never run ahead
// of it. What the mark detects — a database that lost records later
// (damaged, cut, an older copy put back) — happens after the background
// fdatasync (milliseconds). Waiting for it cost as much as the commit
// itself (measured: submissions/s ×0.6; docs/PERFORMANCE.md).
func (m *markFile) set(seq, jobID int64, txid int) error {
	m.mu.Lock()
	err := m.err
	m.mu.Unlock()
	if err != nil {
		return err
	}
	n := m.cur
	n.gen++
	n.Seq = seq
	n.JobID = max(n.JobID, jobID)
	n.TxID = uint32(txid)
	n.Time = time.Now().Unix()
	off := int64(n.gen%2) * slotSize
	if _, err := m.f.WriteAt(encodeSlot(n), off); err != nil {
		return fmt.Errorf("store: writing the high-water mark: %w", err)
	}
	if m.sync {
		select {
		case m.kick <- struct{}{}:
		default: // a sync is already due after this write
		}
	}
	m.cur = n
	return nil
}

// close syncs the file (full sync mode) and closes it.
func (m *markFile) close() error {
	var err error
	if m.sync {
		close(m.kick)
		<-m.done
		err = m.f.Sync()
		if m.err != nil {
			err = m.err
		}
	}
	if cerr := m.f.Close(); err == nil {
		err = cerr
	}
	return err
}

func newStoreID() (string, error) {
	var b [16]byte
	if _, err := io.ReadFull(rand.Reader, b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil || !errors.Is(err, os.ErrNotExist)
}
