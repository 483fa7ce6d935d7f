package mailbox

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

// drain takes a batch and hands all of it out.
func drain(b *Box[int]) []int {
	var got []int
	b.Take()
	for v, ok := b.Next(); ok; v, ok = b.Next() {
		got = append(got, v)
	}
	return got
}

func TestBox(t *testing.T) {
	t.Run("a batch is what was posted before Take, in order", func(t *testing.T) {
		var b Box[int]
		for i := range 3 {
			b.Post(i)
		}
		b.Take()
		b.Post(99) // after Take: the next batch's
		var got []int
		for v, ok := b.Next(); ok; v, ok = b.Next() {
			got = append(got, v)
		}
		if !slices.Equal(got, []int{0, 1, 2}) {
			t.Fatalf("first batch %v, want [0 1 2]", got)
		}
		if got := drain(&b); !slices.Equal(got, []int{99}) {
			t.Fatalf("second batch %v, want [99]", got)
		}
	})
	t.Run("a hand-out left half way resumes at the next item", func(t *testing.T) {
		var b Box[int]
		for i := range 4 {
			b.Post(i)
		}
		b.Take()
		if v, _ := b.Next(); v != 0 {
			t.Fatalf("first item %d, want 0", v)
		}
		b.Post(4)
		// The goroutine that went on would call Take again: it must not
		// drop items 1-3 for a new batch.
		if got := drain(&b); !slices.Equal(got, []int{1, 2, 3}) {
			t.Fatalf("resumed batch %v, want [1 2 3]", got)
		}
		if got := drain(&b); !slices.Equal(got, []int{4}) {
			t.Fatalf("next batch %v, want [4]", got)
		}
	})
	t.Run("Pending says whether items wait", func(t *testing.T) {
		var b Box[int]
		if b.Pending() {
			t.Fatal("an empty box is pending")
		}
		b.Post(1)
		if !b.Pending() {
			t.Fatal("a posted item is not pending")
		}
		b.Take()
		if !b.Pending() {
			t.Fatal("a taken item not yet handed out is not pending")
		}
		b.Next()
		if b.Pending() {
			t.Fatal("a box handed out whole is pending")
		}
	})
	t.Run("Close fails later posts and returns what was not handed out", func(t *testing.T) {
		var b Box[int]
		for i := range 3 {
			b.Post(i)
		}
		b.Take()
		b.Next()
		b.Post(3)
		left := b.Close()
		if !slices.Equal(left, []int{1, 2, 3}) {
			t.Fatalf("Close returned %v, want [1 2 3]", left)
		}
		if b.Post(4) {
			t.Fatal("Post after Close reported true")
		}
		if !b.Closed() || b.Pending() {
			t.Fatalf("after Close: Closed %v, Pending %v", b.Closed(), b.Pending())
		}
		if got := drain(&b); len(got) != 0 {
			t.Fatalf("a closed box handed out %v", got)
		}
	})
	t.Run("a handed-out place keeps no pointer", func(t *testing.T) {
		var b Box[*int]
		b.Post(new(int))
		b.Take()
		b.Next()
		if b.batch[0] != nil {
			t.Fatal("the batch still holds the item handed out")
		}
	})
}

// TestBoxWakesOncePerPost checks that every post wakes the owner and that
// no wake follows a Close that returned.
func TestBoxWakesOncePerPost(t *testing.T) {
	var b Box[int]
	var wakes, afterClose atomic.Int64
	var closed atomic.Bool
	b.Init(func() {
		wakes.Add(1)
		if closed.Load() {
			afterClose.Add(1)
		}
	})
	var wg sync.WaitGroup
	posted := atomic.Int64{}
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 1000 {
				if b.Post(i) {
					posted.Add(1)
				}
			}
		}()
	}
	taken := 0
	for taken < 2000 {
		b.Take()
		for _, ok := b.Next(); ok; _, ok = b.Next() {
			taken++
		}
	}
	left := b.Close()
	closed.Store(true)
	wg.Wait()
	b.Take()
	for _, ok := b.Next(); ok; _, ok = b.Next() {
		taken++
	}
	taken += len(left)
	if int64(taken) != posted.Load() {
		t.Fatalf("handed out and left %d, posted %d", taken, posted.Load())
	}
	if wakes.Load() != posted.Load() {
		t.Fatalf("%d wakes for %d posts", wakes.Load(), posted.Load())
	}
	if afterClose.Load() != 0 {
		t.Fatalf("%d wakes after Close returned", afterClose.Load())
	}
}

func TestBoxAllocatesNothingOnceGrown(t *testing.T) {
	var b Box[*int]
	x := new(int)
	round := func() {
		for range 64 {
			b.Post(x)
		}
		b.Take()
		for _, ok := b.Next(); ok; _, ok = b.Next() {
		}
	}
	round()
	round()
	if n := testing.AllocsPerRun(100, round); n != 0 {
		t.Fatalf("%.1f allocations per round of 64 posts and a hand-out, want 0", n)
	}
}

func BenchmarkBoxPostTake(b *testing.B) {
	var box Box[*int]
	x := new(int)
	b.ReportAllocs()
	for b.Loop() {
		box.Post(x)
		box.Take()
		box.Next()
	}
}
