package commitlog

import (
	"errors"
	"fmt"
	"io/fs"
)

// Tailer follows the segments of one commit log directory while Cassandra
// writes them: each Poll hands out the entries written since the last
// one, segment by segment in id order, each entry once. It keeps, per
// segment, where its reading stopped (a Checkpoint) and forgets a segment
// once Cassandra deleted it: Cassandra deletes a segment only when every
// table with updates in it has flushed them, so what it held is in the
// SSTables (or, after a restart, replayed and flushed).
//
// Every segment is read as live (Options.Live): a torn tail ends its
// reading for this Poll without an error, wherever it is. Cassandra
// writes one segment at a time, but the one a crash tore stays on disk
// beside the new ones until its replay is flushed, and its valid prefix
// is exactly what the replay applied. Damage before the tail (a bad entry
// followed by a valid sync marker, a marker with a wrong CRC, a damaged
// header) is an error naming the segment, and the segment is broken: no
// more is read from it until it is deleted, and Broken says so, because
// the updates after the damage are unknown.
//
// A Tailer is not safe for concurrent use.
type Tailer struct {
	dir  string
	opt  Options
	segs map[int64]*tailState
}

// tailState is one segment's reading.
type tailState struct {
	path   string
	cp     Checkpoint
	closed bool  // read to its end while two newer segments existed: nothing more comes
	broken error // damage met: nothing more is read from it
}

// NewTailer follows dir. opt.MaxSectionBytes bounds every reading's
// memory; opt.Live and opt.From are the Tailer's own.
func NewTailer(dir string, opt Options) *Tailer {
	return &Tailer{dir: dir, opt: Options{MaxSectionBytes: opt.MaxSectionBytes}, segs: map[int64]*tailState{}}
}

// Polled is what one Poll did.
type Polled struct {
	Entries int     // entries handed out
	Gone    []int64 // ids of the segments deleted since the last Poll
	// Torn: segments whose reading ended at a torn tail (being written,
	// or torn by a crash); normal for the segment Cassandra writes.
	Torn int
}

// Poll hands fn every entry the directory's segments gained since the
// last Poll, with its segment's messaging version (what its mutations
// are serialized at). Entry.Mutation aliases the reader's buffer during
// the call only. An error listing the directory fails the Poll; damage
// in a segment is returned (joined, each naming its segment) after the
// other segments were read, and that segment is broken from then on.
func (t *Tailer) Poll(fn func(e Entry, messagingVersion int)) (Polled, error) {
	var p Polled
	segs, err := ListDir(t.dir)
	if err != nil {
		return p, fmt.Errorf("tail commit log: %w", err)
	}
	present := make(map[int64]bool, len(segs))
	var errs []error
	for i, sf := range segs {
		present[sf.ID] = true
		st := t.segs[sf.ID]
		if st == nil {
			st = &tailState{path: sf.Path}
			t.segs[sf.ID] = st
		}
		if st.closed || st.broken != nil {
			continue
		}
		n, torn, err := t.read(st, fn)
		p.Entries += n
		switch {
		case errors.Is(err, fs.ErrNotExist):
			// Deleted since the listing: the next Poll forgets it.
		case err != nil:
			st.broken = err
			errs = append(errs, err)
		case torn:
			p.Torn++
		case i < len(segs)-2:
			// Two newer segments exist and this one ended cleanly:
			// Cassandra writes no more into it.
			st.closed = true
		}
	}
	for id := range t.segs {
		if !present[id] {
			delete(t.segs, id)
			p.Gone = append(p.Gone, id)
		}
	}
	return p, errors.Join(errs...)
}

// read hands out the entries of one segment from its checkpoint.
func (t *Tailer) read(st *tailState, fn func(Entry, int)) (n int, torn bool, err error) {
	opt := t.opt
	opt.Live, opt.From = true, st.cp
	r, err := Open(st.path, opt)
	if err != nil {
		return 0, false, err
	}
	defer r.Close()
	for r.Next() {
		fn(r.Entry(), r.MessagingVersion())
		n++
	}
	st.cp = r.Checkpoint()
	return n, r.TornTail() != nil, r.Err()
}

// Broken lists the damage met in segments still on disk: while it is not
// empty, the updates after each damage are unknown, and a reader of the
// log must not claim to reflect it whole.
func (t *Tailer) Broken() []error {
	var out []error
	for _, st := range t.segs {
		if st.broken != nil {
			out = append(out, st.broken)
		}
	}
	return out
}
