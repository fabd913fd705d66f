package node

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEventBusFansOutAndNeverBlocks(t *testing.T) {
	b := newEventBus()
	s1, cancel1, ok := b.subscribe()
	require.True(t, ok)
	s2, cancel2, ok := b.subscribe()
	require.True(t, ok)
	defer cancel2()

	b.publish(Event{Type: EventJobCreated, JobID: "j1"})
	require.Equal(t, "j1", (<-s1.ch).JobID)
	require.Equal(t, "j1", (<-s2.ch).JobID)
	require.False(t, s1.lost.Load())

	// A subscriber that does not read loses events instead of blocking the
	// publisher (the market's goroutines), and is marked for a resync.
	for range eventBuffer + 5 {
		b.publish(Event{Type: EventJobUpdated})
	}
	require.Len(t, s1.ch, eventBuffer)
	require.True(t, s1.lost.Load())

	cancel1()
	_, open := <-drain(s1.ch)
	require.False(t, open, "cancel closes the subscription")
	cancel1() // idempotent
	b.publish(Event{Type: EventJobUpdated})
}

func TestEventBusCapsAndCloses(t *testing.T) {
	b := newEventBus()
	var subs []*eventSub
	for range maxEventSubscribers {
		s, _, ok := b.subscribe()
		require.True(t, ok)
		subs = append(subs, s)
	}
	_, _, ok := b.subscribe()
	require.False(t, ok, "more than maxEventSubscribers")
	b.close()
	for _, s := range subs {
		_, open := <-s.ch
		require.False(t, open, "close ends every stream")
	}
	_, _, ok = b.subscribe()
	require.False(t, ok, "a closed bus takes no subscribers")
}

// drain empties ch and returns it.
func drain(ch chan Event) chan Event {
	for {
		select {
		case _, open := <-ch:
			if !open {
				return ch
			}
		default:
			return ch
		}
	}
}
