package kube

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"time"
)

// How the watch loop paces itself, as client-go's reflector does: after
// a failed call it waits backoffStart, doubling to backoffMax; a watch
// asks the API server to end it after minWatch to twice that, spread so
// that many servers do not all watch again at once.
const (
	backoffStart = 800 * time.Millisecond
	backoffMax   = 30 * time.Second
	minWatch     = 5 * time.Minute
	// listTimeout bounds a list; a watch is bounded by its own timeout.
	listTimeout = time.Minute
	// A watch that the API server ends this soon without an event is
	// a failure, not a watch to open again at once.
	shortWatch = time.Second
)

// errGone: the API server no longer has the resource version the watch
// was at; a new list catches up.
var errGone = errors.New("resource version too old")

// run keeps the slices current until ctx ends: the loop a client-go
// reflector runs, for one resource. Each cycle lists the slices if they
// are not (through a watch-list, else a list) and then watches from
// where the list left off; a watch the API server ends as watches end
// is opened again at once, anything else after a backoff.
func (s *Source) run(ctx context.Context) {
	defer close(s.done)
	var delay time.Duration
	for {
		if delay > 0 {
			t := time.NewTimer(delay)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
		ok := s.cycle(ctx)
		if ctx.Err() != nil {
			return
		}
		switch {
		case ok:
			delay = 0
		case delay == 0:
			delay = backoffStart
		default:
			delay = min(2*delay, backoffMax)
		}
	}
}

// cycle lists if need be and watches once; it reports whether the watch
// ended as watches do, or the API server asked for a new list.
func (s *Source) cycle(ctx context.Context) bool {
	if s.rv == "" {
		// A watch-list first (sendInitialEvents: the slices arrive as
		// events, then the watch goes on), which needs only the watch
		// verb; where the API server does not serve one, a list, as
		// client-go falls back.
		err := s.watch(ctx, true)
		switch {
		case err == nil:
			return true
		case s.rv != "":
			// Listed through the watch, which then broke: watch again
			// from there, after the backoff.
			return false
		}
		if ctx.Err() != nil {
			return false
		}
		if err := s.list(ctx); err != nil {
			return false
		}
	}
	err := s.watch(ctx, false)
	return err == nil || errors.Is(err, errGone)
}

// list replaces the slices with a complete list.
func (s *Source) list(ctx context.Context) error {
	lctx, cancel := context.WithTimeout(ctx, listTimeout)
	defer cancel()
	l, err := s.cfg.Client.list(lctx, s.cfg.Namespace, s.selector)
	if err != nil {
		// A list that succeeds does not clear a failure: until a watch
		// is open, changes are not followed.
		if ctx.Err() == nil {
			s.record(err)
		}
		return err
	}
	fresh := make(map[string]*endpointSlice, len(l.Items))
	for i := range l.Items {
		fresh[l.Items[i].Name] = &l.Items[i]
	}
	s.listed(fresh, l.Metadata.ResourceVersion)
	return nil
}

// listed makes fresh the slices, at resource version rv.
func (s *Source) listed(fresh map[string]*endpointSlice, rv string) {
	s.slices, s.rv = fresh, rv
	if !s.isSynced() {
		close(s.synced)
	}
	s.rebuild()
}

// watch opens one watch and follows it until it ends: from s.rv, or,
// with initial, as a watch-list whose first events are the slices there
// are, ended by a bookmark. Its error is nil when the API server ended
// the watch as it ends them, errGone when it asked for a new list.
func (s *Source) watch(ctx context.Context, initial bool) error {
	q := url.Values{}
	if initial {
		q.Set("sendInitialEvents", "true")
		q.Set("resourceVersionMatch", "NotOlderThan")
	} else {
		q.Set("resourceVersion", s.rv)
	}
	timeout := minWatch + rand.N(minWatch)
	w, err := s.cfg.Client.watch(ctx, s.cfg.Namespace, s.selector, q, timeout)
	switch {
	case isGone(err):
		s.rv = ""
		return errGone
	case err == nil:
		s.record(nil)
	case initial || ctx.Err() != nil:
		// A watch-list refused is no failure yet: the list that
		// follows tells (nor is a call the Source's end stopped).
		return err
	default:
		s.record(err)
		return err
	}
	defer w.close()
	began, events := time.Now(), 0
	// The initial events go to a map of their own, which replaces the
	// slices once the bookmark says they are all there.
	var fresh map[string]*endpointSlice
	if initial {
		fresh = map[string]*endpointSlice{}
	}
	for {
		ev, err := w.next()
		if errors.Is(err, io.EOF) {
			if events == 0 && time.Since(began) < shortWatch {
				err = fmt.Errorf("watch EndpointSlices: the API server ended it after %v without an event", time.Since(began).Round(time.Millisecond))
			} else {
				return nil
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				return err // stopped: no failure
			}
			err = fmt.Errorf("watch EndpointSlices: %w", err)
			s.record(err)
			return err
		}
		events++
		if err := s.apply(ev, &fresh); err != nil {
			if !errors.Is(err, errGone) {
				s.record(err)
			}
			return err
		}
	}
}

// apply takes one watch event into the slices, or into *fresh while a
// watch-list's initial events arrive.
func (s *Source) apply(ev watchEvent, fresh *map[string]*endpointSlice) error {
	switch ev.Type {
	case eventAdded, eventModified, eventDeleted, eventBookmark:
	case eventError:
		var st apiStatus
		if err := json.Unmarshal(ev.Object, &st); err != nil {
			return fmt.Errorf("watch EndpointSlices: an ERROR event that does not decode: %w", err)
		}
		if st.Code == http.StatusGone {
			s.rv = ""
			return errGone
		}
		return &apiError{what: "watch EndpointSlices", code: st.Code, message: st.Message}
	default:
		return fmt.Errorf("watch EndpointSlices: event type %q", ev.Type)
	}
	es := &endpointSlice{}
	if err := json.Unmarshal(ev.Object, es); err != nil {
		return fmt.Errorf("watch EndpointSlices: a %s event that does not decode: %w", ev.Type, err)
	}
	if *fresh != nil {
		switch ev.Type {
		case eventBookmark:
			if es.Annotations[initialEventsEnd] == "true" {
				s.listed(*fresh, es.ResourceVersion)
				*fresh = nil
			}
		case eventDeleted:
			delete(*fresh, es.Name)
		default:
			(*fresh)[es.Name] = es
		}
		return nil
	}
	s.rv = es.ResourceVersion
	switch ev.Type {
	case eventBookmark:
		return nil
	case eventDeleted:
		delete(s.slices, es.Name)
	default:
		s.slices[es.Name] = es
	}
	s.rebuild()
	return nil
}
